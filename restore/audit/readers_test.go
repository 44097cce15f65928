package audit

import (
	codex "github.com/compact-guard/compact-guard/clients/codex/reader"
	copilot "github.com/compact-guard/compact-guard/clients/copilot/reader"
	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	qwen "github.com/compact-guard/compact-guard/clients/qwen/reader"
	"github.com/compact-guard/compact-guard/transcript"
)

// The clients' folders register their readers when the program starts
// (agent.Register), which this package's tests do not reach; they register
// the same rows, in the registry's order, themselves.
func init() {
	transcript.Register(transcript.FormatCodex, codex.Reader{})
	transcript.Register(transcript.FormatQwen, qwen.Reader{})
	transcript.Register(transcript.FormatCopilot, copilot.Reader{})
	transcript.Register(transcript.FormatGemini, gemini.Reader{})
}
