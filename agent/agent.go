// Package agent is what the shared code asks of a client: one small
// struct of data (and a few functions where data will not do) that each
// client's folder under clients/ fills in, and the table the clients
// package registers them into. Claude Code, the baseline, is the table's
// first row; the shared code's defaults are its ways.
package agent

import (
	"github.com/compact-guard/compact-guard/settings"
)

// Client is one client as the shared code sees it.
type Client struct {
	// Settings is its hooks files: its name and title, where the files
	// are and how the client reads them, what install writes, doctor's
	// checks of its own.
	Settings *settings.Client
}

// Name is the client's name on --agent and in its sessions' records.
func (c *Client) Name() settings.Agent { return c.Settings.Agent }

// claude is Claude Code's row, the baseline the shared code is written
// for.
var claude = &Client{Settings: settings.ClientOf(settings.AgentClaude)}

// all is the table of clients, Claude Code's first, then each registered
// in the order help names them.
var all = []*Client{claude}

// Register adds clients to the table, in order, and hands each lower
// package the part of it that package asks about. The clients package
// calls it once, while the program starts.
func Register(cs ...*Client) {
	for _, c := range cs {
		all = append(all, c)
		settings.Register(c.Settings)
	}
}

// All lists the clients, Claude Code's first, in the order help names
// them.
func All() []*Client { return all }

// Of is the client named a; Claude Code's for "" or a name no client has.
func Of(a settings.Agent) *Client {
	for _, c := range all {
		if c.Name() == a {
			return c
		}
	}
	return claude
}
