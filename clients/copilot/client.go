package copilot

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/copilot/reader"
	"github.com/compact-guard/compact-guard/transcript"
)

// Client is what the shared code asks of GitHub Copilot CLI
// (agent.Client); the clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
	Format:   transcript.Format(Name),
	Reader:   reader.Reader{},
	Own:      ownFile,
	Layout:   layout,
	Sessions: sessions,
	Pointer:  pointer,
}
