package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const secretKey = "tvly-SECRET-0123456789abcdef"

func TestPlanConfig_SetsKeysAndKeepsEveryOtherByte(t *testing.T) {
	for _, tc := range []struct{ name, before, want string }{
		{
			name:   "no file",
			before: "",
			want:   "[providers.tavily]\nkeys = \"" + secretKey + "\"\n",
		},
		{
			name:   "a file without the table",
			before: "# my settings\nsearch.mode = \"fallback\"  # keep\n\n[hooks]\nanswer = 'deny'\n",
			want:   "# my settings\nsearch.mode = \"fallback\"  # keep\n\n[hooks]\nanswer = 'deny'\n\n[providers.tavily]\nkeys = \"" + secretKey + "\"\n",
		},
		{
			name:   "the table without keys",
			before: "[providers.tavily]\nsearch_depth = \"advanced\"\n# about exa\n[providers.exa]\nkeys = \"e\"\n",
			want:   "[providers.tavily]\nsearch_depth = \"advanced\"\nkeys = \"" + secretKey + "\"\n# about exa\n[providers.exa]\nkeys = \"e\"\n",
		},
		{
			name:   "a key to replace, indented, without a final newline",
			before: "[providers.tavily]\n  keys = \"old\" # old key\n  topic = \"news\"\n[x]\ny = 1",
			want:   "[providers.tavily]\n  keys = \"" + secretKey + "\"\n  topic = \"news\"\n[x]\ny = 1",
		},
		{
			name:   "a dotted key under [providers]",
			before: "[providers]\ntavily.base_url = \"http://127.0.0.1:1\"\n",
			want:   "[providers]\ntavily.base_url = \"http://127.0.0.1:1\"\ntavily.keys = \"" + secretKey + "\"\n",
		},
		{
			name:   "CRLF line ends",
			before: "debug = true\r\n",
			want:   "debug = true\r\n\r\n[providers.tavily]\r\nkeys = \"" + secretKey + "\"\r\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e, err := PlanConfig(path, []ConfigSetting{{Key: "providers.tavily.keys", Value: secretKey}})
			if err != nil {
				t.Fatal(err)
			}
			if string(e.After) != tc.want {
				t.Fatalf("after:\n%q\nwant:\n%q", e.After, tc.want)
			}
		})
	}
}

func TestPlanConfig_RefusesInlineTablesAndInvalidFilesWithoutQuotingThem(t *testing.T) {
	for _, before := range []string{
		"[providers]\ntavily = { keys = \"tvly-OLDSECRET-1234\" }\n",
		"providers.tavily = \"tvly-OLDSECRET-1234\"\n",
		"keys = \"tvly-OLDSECRET-1234\n",
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := PlanConfig(path, []ConfigSetting{{Key: "providers.tavily.keys", Value: secretKey}})
		if err == nil || !(errors.Is(err, ErrConfigEdit) || errors.Is(err, ErrInvalidTOML)) {
			t.Fatalf("%q: err %v", before, err)
		}
		if strings.Contains(err.Error(), "OLDSECRET") || strings.Contains(err.Error(), secretKey) {
			t.Fatalf("the error quotes a key: %v", err)
		}
		if !strings.Contains(err.Error(), "line ") {
			t.Errorf("the error gives no line: %v", err)
		}
	}
}

func TestConfigEditApply_WritesMode0600AndAPrivateBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "webgate")
	path := filepath.Join(dir, "config.toml")
	e, err := PlanConfig(path, []ConfigSetting{{Key: "providers.tavily.keys", Value: secretKey}})
	if err != nil {
		t.Fatal(err)
	}
	if backup, err := e.Apply(nil); err != nil || backup != "" {
		t.Fatalf("backup %q, err %v", backup, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, err %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
	}

	// An existing file that others may read is narrowed, and backed up
	// privately.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err = PlanConfig(path, []ConfigSetting{{Key: "providers.exa.keys", Value: "exa-key"}})
	if err != nil {
		t.Fatal(err)
	}
	backup, err := e.Apply(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	if backup != path+".20260102T030405Z.bak" {
		t.Errorf("backup %q", backup)
	}
	for _, p := range []string{path, backup} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, err %v", p, fi.Mode(), err)
		}
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), secretKey) || !strings.Contains(string(data), "[providers.exa]\nkeys = \"exa-key\"\n") {
		t.Errorf("content %q", data)
	}
}

func TestConfigEditApply_LeavesAFileChangedSinceThePlanAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("debug = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := PlanConfig(path, []ConfigSetting{{Key: "providers.tavily.keys", Value: secretKey}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("debug = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(nil); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Fatalf("err %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "debug = false\n" {
		t.Errorf("the file was changed: %q", data)
	}
}
