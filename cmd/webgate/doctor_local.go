package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// localVersionTimeout bounds asking a local program for its version.
const localVersionTimeout = 5 * time.Second

// checkLocalReading reports the programs local reading uses, which need
// no key: the browser of the render tier (fetch.browser) and pdftotext
// (fetch.pdftotext), each found or not, with its version.
func (d *doctor) checkLocalReading(ctx context.Context, cfg *config.Config) {
	const sec = "Local reading (no key needed)"
	setting := strings.TrimSpace(cfg.Fetch.Browser)
	origin := cfg.Origin("fetch.browser")
	path, err := browser.Find(setting)
	switch {
	case errors.Is(err, browser.ErrDisabled):
		d.add(sec, "browser", statusInfo, "off (fetch.browser, "+origin+"): pages that need a browser go to the extraction providers", "")
	case err != nil:
		d.add(sec, "browser", statusWarn, fmt.Sprintf("not found (fetch.browser %q, %s): %s; pages that need a browser go to the extraction providers, or to the native tool", setting, origin, sanitize.Line(err.Error())),
			"install chromium-headless-shell or Chromium, or set fetch.browser (WEBGATE_BROWSER) to its path")
	default:
		v, verr := programVersion(ctx, path, "--version")
		if verr != nil {
			d.add(sec, "browser", statusWarn, fmt.Sprintf("%s does not run: %s", path, sanitize.Line(verr.Error())), "reinstall it, or set fetch.browser (WEBGATE_BROWSER) to another browser")
		} else {
			d.add(sec, "browser", statusOK, fmt.Sprintf("%s, %s: app shells are rendered locally", path, v), "")
		}
	}

	setting = strings.TrimSpace(cfg.Fetch.Pdftotext)
	if setting == "off" {
		d.add(sec, "pdftotext", statusInfo, "off (fetch.pdftotext): PDFs are read by the built-in reader", "")
		return
	}
	name := setting
	if name == "" {
		name = "pdftotext"
	}
	path, err = exec.LookPath(name)
	if err != nil {
		d.add(sec, "pdftotext", statusInfo, fmt.Sprintf("%s not found: PDFs are read by the built-in reader, which reads fewer of them well", name),
			"install poppler-utils for pdftotext, or set fetch.pdftotext to its path")
		return
	}
	// pdftotext -v prints its version on stderr and exits 0 (older
	// versions 99).
	v, verr := programVersion(ctx, path, "-v")
	if verr != nil && v == "" {
		d.add(sec, "pdftotext", statusWarn, fmt.Sprintf("%s does not run: %s; PDFs are read by the built-in reader", path, sanitize.Line(verr.Error())), "reinstall poppler-utils, or set fetch.pdftotext to another pdftotext")
		return
	}
	d.add(sec, "pdftotext", statusOK, fmt.Sprintf("%s, %s: PDFs are read with it", path, v), "")
}

// programVersion runs path with arg and returns the first non-empty line
// of its output (stdout, then stderr), sanitised; err is set when the
// program fails to start or exits non-zero.
func programVersion(ctx context.Context, path, arg string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, localVersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, arg)
	// A program that leaves a child holding its output open must not keep
	// doctor waiting past the timeout.
	cmd.WaitDelay = time.Second
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &limitedBuilder{b: &out}, &limitedBuilder{b: &errb}
	err := cmd.Run()
	for _, s := range []string{out.String(), errb.String()} {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return sanitize.Line(l), err
			}
		}
	}
	if err == nil {
		return "no version reported", nil
	}
	return "", err
}

// limitedBuilder keeps at most 4 KiB of what is written to it.
type limitedBuilder struct{ b *strings.Builder }

func (l *limitedBuilder) Write(p []byte) (int, error) {
	if room := 4096 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
