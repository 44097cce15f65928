package transcript

import (
	codex "github.com/compact-guard/compact-guard/clients/codex/reader"
	copilot "github.com/compact-guard/compact-guard/clients/copilot/reader"
	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	qwen "github.com/compact-guard/compact-guard/clients/qwen/reader"
)

// The clients' folders register their readers when the program starts
// (agent.Register), which this package's tests do not reach; they register
// the same rows, in the registry's order, themselves.
func init() {
	Register(FormatCodex, codex.Reader{})
	Register(FormatQwen, qwen.Reader{})
	Register(FormatCopilot, copilot.Reader{})
	Register(FormatGemini, gemini.Reader{})
}
