package cmd

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/transcript"
)

// sessionAgent tells which client a hook runs for (SF-5 agent): the
// transcript's format when its start decided it (TR-37), else the client
// that knows the payload as its own (agent.ForPayload), else Claude Code.
func sessionAgent(p hookio.Payload, f *transcript.File) string {
	return string(agent.ForPayload(p, f).Format)
}
