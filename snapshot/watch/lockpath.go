package watch

import "strings"

// LockPath is the session's lock file beside its state: precompact looks
// at it to tell a note held up by another run from a slow one (PC-37).
func (s Store) LockPath(sessionID string) string {
	return strings.TrimSuffix(s.Path(sessionID), ".json") + ".lock"
}
