// Package clients is the one registry of the clients compact-guard guards
// besides Claude Code, the baseline: one line each, in the order help
// names them. A new client is a folder of its own under clients/ (its
// transcript reader in reader/, its agent.Client in the folder) and one
// line here; importing this package registers them all.
package clients

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/copilot"
	"github.com/compact-guard/compact-guard/clients/gemini"
	"github.com/compact-guard/compact-guard/clients/qwen"
)

func init() {
	agent.Register(
		codex.Client,
		qwen.Client,
		copilot.Client,
		gemini.Client,
	)
}
