package facts

import "time"

// HookContext is a hook's context a client recorded as given to the model
// (specs/audit.md AU-15): Codex CLI writes it into the rollout as a
// developer message, the kind of its content hooks.additional_context.
type HookContext struct {
	// Offset is where its line starts.
	Offset int64
	Time   time.Time
	// Text is the context as recorded; "" when the client kept only its
	// length (Elided).
	Text string
	// Chars is its length in characters: the one the client gives for an
	// elided text ("[elided 812 characters]", Codex CLI 0.169.0), else
	// the text's.
	Chars  int
	Elided bool
}
