package selectsnap

import (
	codex "github.com/compact-guard/compact-guard/clients/codex/reader"
	copilot "github.com/compact-guard/compact-guard/clients/copilot/reader"
	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	qwen "github.com/compact-guard/compact-guard/clients/qwen/reader"
	"github.com/compact-guard/compact-guard/transcript"
)

// The clients of clients/ import this package, so its own tests cannot
// register them; these stand-ins give Codex CLI's and Qwen Code's measured
// orders and Qwen Code's unrecorded context, as their folders register
// them (the conformance suite in clients/ checks the registered values),
// and the clients' readers, which their folders register.
const (
	AgentCodex = "codex"
	AgentQwen  = "qwen"
)

func init() {
	Orders[AgentCodex] = Order{BoundaryBefore: map[string]bool{"SessionStart": true, "PostCompact": true}}
	Orders[AgentQwen] = Order{BoundaryBefore: map[string]bool{"SessionStart": true}, LateSessionStart: true}
	NoContextRecorded["qwen"] = true
	registerReaders()
}

// registerReaders registers the clients' transcript readers, in the
// registry's order.
func registerReaders() {
	transcript.Register(transcript.FormatCodex, codex.Reader{})
	transcript.Register(transcript.FormatQwen, qwen.Reader{})
	transcript.Register(transcript.FormatCopilot, copilot.Reader{})
	transcript.Register(transcript.FormatGemini, gemini.Reader{})
}
