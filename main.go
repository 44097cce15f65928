// Command compact-guard keeps a Claude Code session's working state alive
// across context compaction. See README.md.
package main

import (
	"os"

	"github.com/compact-guard/compact-guard/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
