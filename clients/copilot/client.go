package copilot

import "github.com/compact-guard/compact-guard/agent"

// Client is what the shared code asks of this client (agent.Client); the
// clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
}
