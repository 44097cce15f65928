package cmd

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// claudeVersion asks the Claude Code found on PATH for its release, as
// `claude --version` prints it ("2.1.328 (Claude Code)"), and says where
// the answer came from; "" when there is no claude or it does not answer
// within 10 seconds (IN-18).
func claudeVersion() (version, from string) {
	path, err := exec.LookPath("claude")
	if err != nil {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	out, err := cmd.Output()
	if err != nil {
		return "", ""
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "", ""
	}
	return v, "'" + path + " --version'"
}
