package settings

import (
	"path/filepath"
	"testing"
)

// spec: IN-1
func TestSettingsPathForScopes(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	cwd := filepath.FromSlash("/work/proj")
	abs := func(p string) string { a, _ := filepath.Abs(filepath.FromSlash(p)); return a }
	cases := []struct {
		scope, explicit string
		env             map[string]string
		want            string
	}{
		{ScopeUser, "", nil, filepath.Join(home, ".claude", "settings.json")},
		{ScopeUser, "", map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}, abs("/cfg/settings.json")},
		{ScopeProject, "", nil, filepath.Join(cwd, ".claude", "settings.json")},
		{ScopeLocal, "", nil, filepath.Join(cwd, ".claude", "settings.local.json")},
		{ScopeProject, "", map[string]string{"CLAUDE_PROJECT_DIR": "/root/proj"}, abs("/root/proj/.claude/settings.json")},
		{ScopeLocal, "/x/my.json", nil, abs("/x/my.json")},
	}
	for _, c := range cases {
		h := Host{
			Getenv: func(k string) string { return c.env[k] },
			Home:   func() (string, error) { return home, nil },
			Getwd:  func() (string, error) { return cwd, nil },
		}
		got, err := PathFor(c.scope, c.explicit, h)
		if err != nil || got != c.want {
			t.Errorf("%s %q %v: %q %v, want %q", c.scope, c.explicit, c.env, got, err, c.want)
		}
	}
}
