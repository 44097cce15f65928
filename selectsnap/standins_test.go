package selectsnap

// The clients of clients/ import this package, so its own tests cannot
// register them; these stand-ins give Codex CLI's and Qwen Code's measured
// orders and Qwen Code's unrecorded context, as their folders register
// them (the conformance suite in clients/ checks the registered values).
const (
	AgentCodex = "codex"
	AgentQwen  = "qwen"
)

func init() {
	Orders[AgentCodex] = Order{BoundaryBefore: map[string]bool{"SessionStart": true, "PostCompact": true}}
	Orders[AgentQwen] = Order{BoundaryBefore: map[string]bool{"SessionStart": true}, LateSessionStart: true}
	NoContextRecorded["qwen"] = true
}
