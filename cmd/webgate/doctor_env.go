package main

import (
	"slices"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// readEnv returns every WEBGATE_ variable webgate reads: each setting's
// and its legacy names of that form, and those read outside the
// settings (the configuration file, the team gateway, the hooks' worker).
func readEnv() map[string]bool {
	names := map[string]bool{config.ConfigFileEnv: true, hookenv.GatewayURLEnv: true, hookenv.GatewayTokenEnv: true,
		gate.WorkerEnv: true, worker.FrontEnv: true}
	for _, s := range config.Settings() {
		for _, n := range append([]string{s.Env}, s.Legacy...) {
			if strings.HasPrefix(n, config.EnvPrefix) {
				names[n] = true
			}
		}
	}
	return names
}

// checkEnv warns of each WEBGATE_ variable set in env that webgate does
// not read, with the closest one it does: a misspelled setting would
// otherwise be ignored without a word. Only names are shown, never
// values.
func (d *doctor) checkEnv(env []string) {
	read := readEnv()
	known := make([]string, 0, len(read))
	for n := range read {
		known = append(known, strings.TrimPrefix(n, config.EnvPrefix))
	}
	slices.Sort(known)
	// The names the usual rule would give the settings whose variable
	// is another (store.url is WEBGATE_STORE).
	derived := map[string]string{}
	for _, st := range config.Settings() {
		rule := config.EnvName(st.Key)
		if st.Env != "" && rule != st.Env && !read[rule] {
			derived[rule] = st.Env
		}
	}
	var unread []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, config.EnvPrefix) && !read[name] && !slices.Contains(unread, name) {
			unread = append(unread, name)
		}
	}
	slices.Sort(unread)
	for _, name := range unread {
		hint := ""
		if real, ok := derived[name]; ok {
			hint = " (did you mean " + real + "?)"
		}
		if hint == "" {
			hint = didYouMean(strings.TrimPrefix(name, config.EnvPrefix), known, config.EnvPrefix)
		}
		if hint == "" {
			hint = providerKeyHint(name)
		}
		d.add("Configuration", "environment", statusWarn, name+" is set, but webgate reads no such variable"+hint,
			"rename or unset it: the Settings table in the README gives each setting's variable")
	}
}

// providerKeyHint returns " (did you mean TAVILY_API_KEY or
// WEBGATE_PROVIDERS_TAVILY_KEYS?)" for a variable that names a provider
// and a key ("WEBGATE_TAVILY_KEY"), or "".
func providerKeyHint(name string) string {
	lower := strings.ToLower(name)
	if !strings.Contains(lower, "key") {
		return ""
	}
	for _, b := range config.Providers().All() {
		if !strings.Contains(lower, b.Name) {
			continue
		}
		keys := config.EnvName("providers." + b.Name + ".keys")
		if b.KeyEnv != "" {
			return " (did you mean " + b.KeyEnv + " or " + keys + "?)"
		}
		return " (did you mean " + keys + "?)"
	}
	return ""
}
