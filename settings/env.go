package settings

import "github.com/tailscale/hujson"

// Env returns the string the settings file's "env" block gives name, and
// whether it gives one: Claude Code sets those variables for the session
// and every hook it runs (doctor reads COMPACT_GUARD_HINT there, DR-16).
func (d *Document) Env(name string) (string, bool) {
	env, _ := member(d.rootObject(), "env").(*hujson.Object)
	return stringOf(member(env, name))
}
