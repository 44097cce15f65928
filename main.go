// Command compact-guard keeps a coding agent's working state alive across
// context compaction. It runs as hooks of Claude Code, Codex CLI, Qwen Code,
// GitHub Copilot CLI and Gemini CLI. See README.md.
package main

import (
	"os"

	"github.com/compact-guard/compact-guard/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
