package main

import (
	"strings"
	"testing"
)

// INSTALL.txt, which every archive holds beside the binary, says where the
// binary goes (and how to clear macOS's quarantine), how to install the
// hooks per client, how to check the setup, how to remove it and what
// stays, and how to verify the download.
// spec: RL-11
func TestInstallTextSaysEachStep(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"where the binary goes", "folder on your PATH"},
		{"macOS's quarantine", "xattr -d com.apple.quarantine"},
		{"Claude Code's hooks", "compact-guard install "},
		{"Codex CLI's hooks", "compact-guard install --agent codex"},
		{"Qwen Code's hooks", "compact-guard install --agent qwen"},
		{"Copilot CLI's hooks", "compact-guard install --agent copilot"},
		{"Gemini CLI's hooks", "compact-guard install --agent gemini"},
		{"the check", "compact-guard doctor"},
		{"the removal", "compact-guard uninstall"},
		{"what stays", "The snapshots stay"},
		{"the verification", "checksums.txt"},
	} {
		if !strings.Contains(string(installText), c.want) {
			t.Errorf("INSTALL.txt does not say %s (%q)", c.step, c.want)
		}
	}
}
