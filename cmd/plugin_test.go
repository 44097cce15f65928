package cmd

import (
	"fmt"
	"sort"
	"testing"

	"github.com/compact-guard/compact-guard/settings"
)

// hookShape is what a registration amounts to, whoever writes it.
type hookShape struct {
	Event, Matcher, Sub, Timeout string
}

func shapesOf(t *testing.T, hs []settings.Entry) []hookShape {
	t.Helper()
	var out []hookShape
	for _, h := range hs {
		out = append(out, hookShape{h.Event, h.Matcher, h.Sub, h.Timeout})
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// The plugin's hooks are exactly what install writes into a settings file:
// the same events, matchers, sub-commands and timeouts. A registration
// added to one and not the other fails here.
//
// spec: PL-2
func TestPluginHooksMatchInstall(t *testing.T) {
	installed, err := settings.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := installed.Install("/opt/bin/compact-guard", "", settings.Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	plugin, err := settings.Parse(PluginHooksJSON())
	if err != nil {
		t.Fatalf("hooks.json: %v\n%s", err, PluginHooksJSON())
	}
	got, want := shapesOf(t, plugin.Entries("")), shapesOf(t, installed.Entries(""))
	if len(want) != len(settings.Hooks) {
		t.Fatalf("install wrote %d registrations, settings.Hooks has %d", len(want), len(settings.Hooks))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("plugin hooks %v\ninstall writes %v", got, want)
	}
	for _, h := range plugin.Entries("") {
		if h.Program != "${CLAUDE_PLUGIN_ROOT}/bin/compact-guard" || len(h.ExecArgs) != 1 || h.ExecArgs[0] != h.Sub {
			t.Errorf("%s: want exec form running ${CLAUDE_PLUGIN_ROOT}/bin/compact-guard with the sub-command alone, got %q %q", h.Event, h.Program, h.ExecArgs)
		}
	}
}

// spec: PL-1
func TestPluginIDIsNotTaken(t *testing.T) {
	if PluginID == "compact-guard@compact-guard" {
		t.Errorf("install id %s is another plugin's", PluginID)
	}
	if PluginID != "compact-guard@compact-guard-tools" {
		t.Errorf("install id %s: the README and specs say compact-guard@compact-guard-tools", PluginID)
	}
}
