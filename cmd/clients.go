package cmd

// Every client besides Claude Code joins the shared code's tables when the
// clients registry starts: importing it is what registers them all.
import _ "github.com/compact-guard/compact-guard/clients"
