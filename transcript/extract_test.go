package transcript

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	claude "github.com/compact-guard/compact-guard/clients/claude/reader"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// spec: TR-16
func TestTR16TypedPrompts(t *testing.T) {
	img := obj{"type": "image", "source": obj{"type": "base64", "media_type": "image/png", "data": "AAAA"}}
	text := func(s string) obj { return obj{"type": "text", "text": s} }
	cases := []struct {
		name string
		line string
		want []string
	}{
		{"string content", prompt(1, "fix the build", nil), []string{"fix the build"}},
		{"promptSource typed", prompt(1, "a", obj{"promptSource": "typed"}), []string{"a"}},
		{"promptSource queued", prompt(1, "a", obj{"promptSource": "queued"}), []string{"a"}},
		{"promptSource sdk (headless 2.1.328)", prompt(1, "a", obj{"promptSource": "sdk"}), []string{"a"}},
		{"promptSource system", prompt(1, "a", obj{"promptSource": "system"}), nil},
		{"origin human", prompt(1, "a", obj{"origin": obj{"kind": "human"}}), []string{"a"}},
		{"origin task-notification", prompt(1, "a", obj{"origin": obj{"kind": "task-notification"}}), nil},
		{"isMeta", prompt(1, "skill body", obj{"isMeta": true}), nil},
		{"isCompactSummary", prompt(1, "summary", obj{"isCompactSummary": true}), nil},
		{"toolUseResult present", prompt(1, "a", obj{"toolUseResult": "x"}), nil},
		{"sidechain", prompt(1, "a", obj{"isSidechain": true}), nil},
		{"text blocks joined", userBlocks(1, []any{text("first"), text("second")}, nil), []string{"first\nsecond"}},
		{"image then text", userBlocks(1, []any{img, text("what is this?")}, nil), []string{"[image]\nwhat is this?"}},
		{"image only", userBlocks(1, []any{img}, nil), []string{"[image]"}},
		{"other blocks left out", userBlocks(1, []any{obj{"type": "document"}, text("see doc")}, nil), []string{"see doc"}},
		{"array with tool_result", userBlocks(1, []any{obj{"type": "tool_result", "tool_use_id": "t", "content": "x"}, text("b")}, nil), nil},
		{"white space only", prompt(1, " \n\t ", nil), nil},
		{"verbatim, spaces kept", prompt(1, "  two  spaces \n", nil), []string{"  two  spaces \n"}},
		{"leading space before marker", prompt(1, "\n <command-name>/clear</command-name>", nil), nil},
		{"marker not at start", prompt(1, "please explain <command-name>", nil), []string{"please explain <command-name>"}},
		{"interrupt marker in array", userBlocks(1, []any{text("[Request interrupted by user]")}, nil), nil},
	}
	for _, m := range claude.HarnessMarkers {
		cases = append(cases, struct {
			name string
			line string
			want []string
		}{"marker " + m, prompt(1, m+" rest", nil), nil})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(c.line)
			eqSlice(t, "prompts", promptTexts(f), c.want)
			if len(c.want) == 1 && !f.Prompts[0].Time.Equal(tsTime(1)) {
				t.Errorf("time = %v", f.Prompts[0].Time)
			}
		})
	}
}

// spec: TR-17
func TestTR17PromptLimits(t *testing.T) {
	t.Run("last five, oldest first", func(t *testing.T) {
		var lines []string
		for i := 1; i <= 7; i++ {
			lines = append(lines, prompt(i, fmt.Sprint("p", i), nil))
		}
		eqSlice(t, "prompts", promptTexts(extract(lines...)), []string{"p3", "p4", "p5", "p6", "p7"})
	})
	t.Run("cut at 4000 runes with marker", func(t *testing.T) {
		long := strings.Repeat("ж", 5000)
		f := extract(prompt(1, long, nil))
		p := f.Prompts[0]
		if !p.Truncated || !strings.HasSuffix(p.Text, textcut.Marker) {
			t.Fatalf("truncated %v, text ends %q", p.Truncated, p.Text[len(p.Text)-20:])
		}
		body := strings.TrimSuffix(p.Text, textcut.Marker)
		eq(t, "runes", utf8.RuneCountInString(body), MaxPromptChars)
		eq(t, "valid UTF-8", utf8.ValidString(p.Text), true)
	})
	t.Run("exactly 4000 runes is not cut", func(t *testing.T) {
		f := extract(prompt(1, strings.Repeat("a", MaxPromptChars), nil))
		eq(t, "truncated", f.Prompts[0].Truncated, false)
		eq(t, "len", len(f.Prompts[0].Text), MaxPromptChars)
	})
	t.Run("blocks cut as a whole", func(t *testing.T) {
		f := extract(userBlocks(1, []any{obj{"type": "text", "text": strings.Repeat("a", 3000)},
			obj{"type": "text", "text": strings.Repeat("b", 3000)}}, nil))
		p := f.Prompts[0]
		eq(t, "truncated", p.Truncated, true)
		eq(t, "runes", utf8.RuneCountInString(strings.TrimSuffix(p.Text, textcut.Marker)), MaxPromptChars)
	})
	t.Run("same text same time kept once", func(t *testing.T) {
		eqSlice(t, "prompts", promptTexts(extract(prompt(1, "a", nil), prompt(1, "a", nil))), []string{"a"})
	})
	t.Run("same text later is typed again", func(t *testing.T) {
		eqSlice(t, "prompts", promptTexts(extract(prompt(1, "a", nil), prompt(2, "a", nil))), []string{"a", "a"})
	})
	t.Run("escapes decoded", func(t *testing.T) {
		line := `{"type":"user","message":{"role":"user","content":"tab\there \u00e9 \ud83d\ude00 \"q\""}}`
		eqSlice(t, "prompts", promptTexts(extract(line)), []string{"tab\there é 😀 \"q\""})
	})
}

// spec: TR-18
func TestTR18LastPrompt(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  []string
		from  bool // newest prompt FromLastPrompt
	}{
		{"newer last-prompt adds", []string{prompt(1, "a", nil), lastPrompt("b")}, []string{"a", "b"}, true},
		{"same as last typed", []string{prompt(1, "a", nil), lastPrompt("a")}, []string{"a"}, false},
		{"same apart from spaces", []string{prompt(1, "a\n", nil), lastPrompt(" a")}, []string{"a\n"}, false},
		// Claude Code 2.1.328 writes lastPrompt with line breaks turned into spaces.
		{"line breaks flattened", []string{prompt(1, "fix:\n\n## step\n```sh\n./t.sh\n```", nil), lastPrompt("fix:  ## step ```sh ./t.sh ```")},
			[]string{"fix:\n\n## step\n```sh\n./t.sh\n```"}, false},
		{"flattened, then typed", []string{lastPrompt("a  b"), prompt(1, "a\n\nb", nil)}, []string{"a\n\nb"}, false},
		{"older than a later typed prompt", []string{lastPrompt("b"), prompt(1, "c", nil)}, []string{"c"}, false},
		{"then typed with the same text", []string{prompt(1, "a", nil), lastPrompt("b"), prompt(2, "b", nil)}, []string{"a", "b"}, false},
		{"equal to an older kept prompt", []string{prompt(1, "a", nil), prompt(2, "b", nil), lastPrompt("a")}, []string{"a", "b"}, false},
		{"empty lastPrompt", []string{prompt(1, "a", nil), lastPrompt(" ")}, []string{"a"}, false},
		{"leafUuid only", []string{prompt(1, "a", nil), `{"type":"last-prompt","leafUuid":"x"}`}, []string{"a"}, false},
		{"only a last-prompt", []string{lastPrompt("b")}, []string{"b"}, true},
		{"last one wins", []string{prompt(1, "a", nil), lastPrompt("b"), lastPrompt("c")}, []string{"a", "c"}, true},
		{"sixth prompt drops the oldest", []string{prompt(1, "1", nil), prompt(2, "2", nil), prompt(3, "3", nil),
			prompt(4, "4", nil), prompt(5, "5", nil), lastPrompt("6")}, []string{"2", "3", "4", "5", "6"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(c.lines...)
			eqSlice(t, "prompts", promptTexts(f), c.want)
			if n := len(f.Prompts); n > 0 {
				eq(t, "FromLastPrompt", f.Prompts[n-1].FromLastPrompt, c.from)
				if c.from && !f.Prompts[n-1].Time.IsZero() {
					t.Errorf("last-prompt has a time")
				}
			}
		})
	}
	t.Run("a seed's last-prompt prompt replaced by the typed one", func(t *testing.T) {
		x := NewExtractor(&Facts{Prompts: []Prompt{{Text: "a"}, {Text: "b", FromLastPrompt: true}}})
		x.Feed([]byte(prompt(3, "b", nil)))
		f := x.Facts()
		eqSlice(t, "prompts", promptTexts(f), []string{"a", "b"})
		eq(t, "FromLastPrompt", f.Prompts[1].FromLastPrompt, false)
	})
}

// spec: TR-19
func TestTR19EditedFiles(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  []FileEdit
	}{
		{"write ok", []string{
			call(1, "t1", "Write", obj{"file_path": "/p/a.go", "content": "x"}),
			result(2, "t1", "File created successfully at: /p/a.go", false, obj{"type": "create"}),
		}, []FileEdit{{Path: "/p/a.go", Edits: 1, LastTool: "Write", LastTime: tsTime(1)}}},
		{"edit is_error", []string{
			call(1, "t1", "Edit", obj{"file_path": "/p/a.go"}),
			result(2, "t1", "<tool_use_error>File has not been read yet</tool_use_error>", true, "Error: File has not been read yet"),
		}, nil},
		{"error string without is_error", []string{
			call(1, "t1", "Edit", obj{"file_path": "/p/a.go"}),
			result(2, "t1", "x", false, "Error: File has not been read yet"),
		}, nil},
		{"input validation error", []string{
			call(1, "t1", "Edit", obj{"file_path": "/p/a.go"}),
			result(2, "t1", "x", false, "InputValidationError: old_string missing"),
		}, nil},
		{"rejected", []string{
			call(1, "t1", "Write", obj{"file_path": "/p/a.go"}),
			result(2, "t1", "The user doesn't want to proceed with this tool use.", true, "User rejected tool use"),
		}, nil},
		{"no result yet", []string{call(1, "t1", "Write", obj{"file_path": "/p/a.go"})}, nil},
		{"result without call", []string{result(2, "t9", "ok", false, nil)}, nil},
		{"multiedit and notebook", []string{
			call(1, "t1", "MultiEdit", obj{"file_path": "/p/m.go", "edits": []any{}}),
			result(2, "t1", "ok", false, nil),
			call(3, "t2", "NotebookEdit", obj{"notebook_path": "/p/n.ipynb", "new_source": "x"}),
			result(4, "t2", "ok", false, nil),
		}, []FileEdit{
			{Path: "/p/n.ipynb", Edits: 1, LastTool: "NotebookEdit", LastTime: tsTime(3)},
			{Path: "/p/m.go", Edits: 1, LastTool: "MultiEdit", LastTime: tsTime(1)},
		}},
		{"counts, last tool, most recent first", []string{
			call(1, "t1", "Write", obj{"file_path": "/p/a.go"}), result(2, "t1", "ok", false, nil),
			call(3, "t2", "Write", obj{"file_path": "/p/b.go"}), result(4, "t2", "ok", false, nil),
			call(5, "t3", "Edit", obj{"file_path": "/p/a.go"}), result(6, "t3", "ok", false, nil),
		}, []FileEdit{
			{Path: "/p/a.go", Edits: 2, LastTool: "Edit", LastTime: tsTime(5)},
			{Path: "/p/b.go", Edits: 1, LastTool: "Write", LastTime: tsTime(3)},
		}},
		{"path cut", []string{
			call(1, "t1", "Write", obj{"file_path": "/" + strings.Repeat("d", MaxPathChars+10)}), result(2, "t1", "ok", false, nil),
		}, []FileEdit{{Path: "/" + strings.Repeat("d", MaxPathChars-1) + textcut.Marker, Edits: 1, LastTool: "Write", LastTime: tsTime(1)}}},
		{"other tools and Read are no edits", []string{
			call(1, "t1", "Read", obj{"file_path": "/p/a.go"}), result(2, "t1", "ok", false, nil),
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(c.lines...)
			if len(f.Files) != len(c.want) {
				t.Fatalf("files = %+v, want %+v", f.Files, c.want)
			}
			for i := range c.want {
				g, w := f.Files[i], c.want[i]
				if g.Path != w.Path || g.Edits != w.Edits || g.LastTool != w.LastTool || !g.LastTime.Equal(w.LastTime) {
					t.Errorf("file %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
	t.Run("parallel results in one line", func(t *testing.T) {
		line := userBlocks(5, []any{
			obj{"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
			obj{"type": "tool_result", "tool_use_id": "t2", "content": "bad", "is_error": true},
		}, nil)
		f := extract(call(1, "t1", "Edit", obj{"file_path": "/a"}), call(2, "t2", "Edit", obj{"file_path": "/b"}), line)
		eqSlice(t, "files", filePaths(f), []string{"/a"})
	})
}

func intp(n int) *int { return &n }

// spec: TR-20, TR-21
func TestTR20CommandOutcomes(t *testing.T) {
	bash := func(input obj) string { return call(1, "b1", "Bash", input) }
	cmd := obj{"command": "go test ./...", "description": "Run tests"}
	ok := obj{"stdout": "ok", "stderr": "", "interrupted": false, "isImage": false}
	cases := []struct {
		name      string
		lines     []string
		outcome   string
		code      *int
		errorLine string
	}{
		{"ok", []string{bash(cmd), result(2, "b1", "ok", false, ok)}, OutcomeOK, nil, ""},
		{"unknown without result", []string{bash(cmd)}, OutcomeUnknown, nil, ""},
		{"error with exit code", []string{bash(cmd),
			result(2, "b1", "Exit code 2\n\n  \n--- FAIL: TestX\nmore", true, "Error: Exit code 2\n--- FAIL: TestX")},
			OutcomeError, intp(2), "--- FAIL: TestX"},
		{"exit code only in toolUseResult", []string{bash(cmd),
			result(2, "b1", "", true, "Error: Exit code 127\nbash: gox: command not found")},
			OutcomeError, intp(127), "bash: gox: command not found"},
		{"error without exit code", []string{bash(cmd),
			result(2, "b1", "<tool_use_error>Cancelled: parallel tool call Bash errored</tool_use_error>", true, nil)},
			OutcomeError, nil, "Cancelled: parallel tool call Bash errored"},
		{"error text in array content, colours stripped", []string{bash(cmd),
			result(2, "b1", []any{obj{"type": "text", "text": "Exit code 1\n\x1b[31mFAIL\x1b[0m pkg"}}, true, nil)},
			OutcomeError, intp(1), "FAIL pkg"},
		{"rejected by text", []string{bash(cmd),
			result(2, "b1", "The user doesn't want to proceed with this tool use. The tool use was rejected", true, nil)},
			OutcomeRejected, nil, ""},
		{"rejected by toolUseResult", []string{bash(cmd), result(2, "b1", "no", true, "User rejected tool use")},
			OutcomeRejected, nil, ""},
		{"cancelled permission is a rejection", []string{bash(cmd),
			result(2, "b1", "The user doesn't want to take this action right now. STOP what you are doing", true, nil)},
			OutcomeRejected, nil, ""},
		{"interrupted flag", []string{bash(cmd),
			result(2, "b1", "partial", false, obj{"stdout": "partial", "interrupted": true})},
			OutcomeInterrupted, nil, ""},
		{"interrupted marker", []string{bash(cmd),
			result(2, "b1", "[Request interrupted by user for tool use]", true, nil)},
			OutcomeInterrupted, nil, ""},
		{"run_in_background", []string{bash(obj{"command": "make serve", "run_in_background": true}),
			result(2, "b1", "Command running in background with ID: b5", false, obj{"stdout": ""})},
			OutcomeBackground, nil, ""},
		{"backgroundTaskId", []string{bash(cmd),
			result(2, "b1", "moved to background", false, obj{"backgroundTaskId": "b5", "interrupted": false})},
			OutcomeBackground, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(c.lines...)
			if len(f.Commands) != 1 {
				t.Fatalf("commands = %+v", f.Commands)
			}
			g := f.Commands[0]
			eq(t, "outcome", g.Outcome, c.outcome)
			eq(t, "error line", g.ErrorLine, c.errorLine)
			switch {
			case c.code == nil && g.ExitCode != nil:
				t.Errorf("exit code = %d, want none", *g.ExitCode)
			case c.code != nil && (g.ExitCode == nil || *g.ExitCode != *c.code):
				t.Errorf("exit code = %v, want %d", g.ExitCode, *c.code)
			}
			eq(t, "tool", g.Tool, "Bash")
			eq(t, "time", g.Time.Equal(tsTime(1)), true)
		})
	}
	t.Run("command and description", func(t *testing.T) {
		f := extract(call(1, "p1", "PowerShell", obj{"command": "Get-ChildItem", "description": "List"}))
		g := f.Commands[0]
		eq(t, "tool", g.Tool, "PowerShell")
		eq(t, "command", g.Command, "Get-ChildItem")
		eq(t, "description", g.Description, "List")
		eq(t, "truncated", g.Truncated, false)
	})
	t.Run("long command cut at 1000 runes", func(t *testing.T) {
		f := extract(bash(obj{"command": strings.Repeat("é", 1500)}))
		g := f.Commands[0]
		eq(t, "truncated", g.Truncated, true)
		eq(t, "runes", utf8.RuneCountInString(strings.TrimSuffix(g.Command, textcut.Marker)), MaxCommandChars)
		eq(t, "marker", strings.HasSuffix(g.Command, textcut.Marker), true)
	})
	t.Run("last 20, oldest first", func(t *testing.T) {
		var lines []string
		for i := range 25 {
			lines = append(lines, call(i, fmt.Sprint("b", i), "Bash", obj{"command": fmt.Sprint("echo ", i)}))
		}
		f := extract(lines...)
		eq(t, "count", len(f.Commands), MaxCommands)
		eq(t, "first", f.Commands[0].Command, "echo 5")
		eq(t, "last", f.Commands[19].Command, "echo 24")
	})
	t.Run("error line cut", func(t *testing.T) {
		f := extract(bash(cmd), result(2, "b1", "Exit code 1\n"+strings.Repeat("x", 500), true, nil))
		eq(t, "runes", utf8.RuneCountInString(strings.TrimSuffix(f.Commands[0].ErrorLine, textcut.Marker)), MaxErrorChars)
	})
}

// spec: TR-22
func TestTR22Todos(t *testing.T) {
	list := func(items ...string) obj {
		var todos []any
		for i := 0; i+1 < len(items); i += 2 {
			todos = append(todos, obj{"content": items[i], "status": items[i+1], "activeForm": "Doing " + items[i]})
		}
		return obj{"todos": todos}
	}
	t.Run("latest successful list wins", func(t *testing.T) {
		f := extract(
			call(1, "t1", "TodoWrite", list("a", "pending")), result(2, "t1", "Todos have been modified", false, nil),
			call(3, "t2", "TodoWrite", list("a", "completed", "b", "in_progress")), result(4, "t2", "Todos have been modified", false, nil),
		)
		want := []Task{{Subject: "a", Status: "completed", ActiveForm: "Doing a"}, {Subject: "b", Status: "in_progress", ActiveForm: "Doing b"}}
		eqSlice(t, "todos", f.Todos, want)
	})
	t.Run("call answered with an error did not happen", func(t *testing.T) {
		f := extract(
			call(1, "t1", "TodoWrite", list("a", "pending")), result(2, "t1", "ok", false, nil),
			call(3, "t2", "TodoWrite", list("z", "pending")),
			result(4, "t2", "<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>", true, "Error: No such tool available: TodoWrite"),
		)
		eqSlice(t, "todos", f.Todos, []Task{{Subject: "a", Status: "pending", ActiveForm: "Doing a"}})
	})
	t.Run("only a failed call", func(t *testing.T) {
		f := extract(call(3, "t2", "TodoWrite", list("z", "pending")), result(4, "t2", "No such tool", true, nil))
		eq(t, "todos", len(f.Todos), 0)
	})
	t.Run("empty list clears", func(t *testing.T) {
		f := extract(
			call(1, "t1", "TodoWrite", list("a", "pending")), result(2, "t1", "ok", false, nil),
			call(3, "t2", "TodoWrite", obj{"todos": []any{}}), result(4, "t2", "ok", false, nil),
		)
		eq(t, "todos", len(f.Todos), 0)
	})
}

// spec: TR-23
func TestTR23Tasks(t *testing.T) {
	create := func(n int, id, subject string, resultID any) []string {
		return []string{
			call(n, id, "TaskCreate", obj{"subject": subject, "description": "d", "activeForm": "Doing " + subject}),
			result(n+1, id, "Task created", false, obj{"task": obj{"id": resultID, "subject": subject}}),
		}
	}
	update := func(n int, id string, input obj, tur obj) []string {
		return []string{call(n, id, "TaskUpdate", input), result(n+1, id, "Updated", false, tur)}
	}
	var lines []string
	lines = append(lines, create(1, "c1", "Write spec", "1")...)
	lines = append(lines, create(3, "c2", "Write tests", 2)...)
	lines = append(lines, create(5, "c3", "Cleanup", "3")...)
	lines = append(lines, update(7, "u1", obj{"taskId": "1", "status": "in_progress"}, obj{"taskId": "1", "success": true})...)
	lines = append(lines, update(9, "u2", obj{"taskId": "2", "status": "completed", "subject": "Write all tests"}, obj{"taskId": "2", "success": true})...)
	lines = append(lines, update(11, "u3", obj{"taskId": "3", "status": "deleted"}, obj{"taskId": "3", "success": true})...)
	lines = append(lines, update(13, "u4", obj{"taskId": "1", "status": "completed"}, obj{"taskId": "1", "success": false})...)
	lines = append(lines, update(15, "u5", obj{"status": "in_progress"}, obj{"taskId": "9", "success": true})...)
	lines = append(lines, call(17, "c4", "TaskCreate", obj{"subject": "Failed"}), result(18, "c4", "boom", true, nil))
	f := extract(lines...)
	want := []Task{
		{ID: "1", Subject: "Write spec", Status: "in_progress", ActiveForm: "Doing Write spec"},
		{ID: "2", Subject: "Write all tests", Status: "completed", ActiveForm: "Doing Write tests"},
		{ID: "9", Status: "in_progress"},
	}
	eqSlice(t, "tasks", f.Tasks, want)
}

// spec: TR-24
func TestTR24Failures(t *testing.T) {
	t.Run("tools, inputs, errors", func(t *testing.T) {
		f := extract(
			call(1, "r1", "Read", obj{"file_path": "/p/missing.go"}),
			result(2, "r1", "<tool_use_error>File does not exist.</tool_use_error>", true, "Error: File does not exist."),
			call(3, "b1", "Bash", obj{"command": "go vet ./...", "description": "Vet"}),
			result(4, "b1", "Exit code 1\n# pkg\nvet: bad", true, nil),
			call(5, "e1", "Edit", obj{"file_path": "/p/a.go"}),
			result(6, "e1", "The user doesn't want to proceed with this tool use.", true, "User rejected tool use"),
			call(7, "w1", "WebFetch", obj{"url": "https://example.com", "prompt": "x"}),
			result(8, "w1", "ok", false, nil),
			call(9, "b2", "Bash", obj{"command": "sleep 100"}),
			result(10, "b2", "[Request interrupted by user for tool use]", true, nil),
			call(11, "m1", "mcp__srv__do", obj{"a": strings.Repeat("x", 300)}),
			result(12, "m1", "\n\nfailed hard\nsecond", true, nil),
		)
		// An input with none of the known fields is quoted as the
		// transcript writes it, in its layout (TR-56).
		raw := `{"a":"`
		if otherLayout {
			raw = `{"a": "`
		}
		want := []Failure{
			{Tool: "Read", Input: "/p/missing.go", Error: "File does not exist.", Time: tsTime(1)},
			{Tool: "Bash", Input: "go vet ./...", Error: "Exit code 1: # pkg", Time: tsTime(3)},
			{Tool: "Edit", Input: "/p/a.go", Error: "The user doesn't want to proceed with this tool use.", Rejected: true, Time: tsTime(5)},
			{Tool: "mcp__srv__do", Input: raw + strings.Repeat("x", MaxFailureInputChars-len(raw)) + textcut.Marker, Error: "failed hard", Time: tsTime(11)},
		}
		if len(f.Failures) != len(want) {
			t.Fatalf("failures = %+v", f.Failures)
		}
		for i := range want {
			g, w := f.Failures[i], want[i]
			if g.Tool != w.Tool || g.Input != w.Input || g.Error != w.Error || g.Rejected != w.Rejected || !g.Time.Equal(w.Time) {
				t.Errorf("failure %d = %+v\nwant %+v", i, g, w)
			}
		}
	})
	t.Run("last five", func(t *testing.T) {
		var lines []string
		for i := range 7 {
			id := fmt.Sprint("g", i)
			lines = append(lines, call(i, id, "Grep", obj{"pattern": fmt.Sprint("p", i)}), result(i, id, "bad", true, nil))
		}
		f := extract(lines...)
		eq(t, "count", len(f.Failures), MaxFailures)
		eq(t, "first", f.Failures[0].Input, "p2")
		eq(t, "last", f.Failures[4].Input, "p6")
	})
}

// spec: TR-25
func TestTR25Plan(t *testing.T) {
	f := extract(
		call(1, "x1", "ExitPlanMode", obj{"plan": "# Plan A"}), result(2, "x1", "User has approved your plan", false, obj{"plan": "# Plan A"}),
		call(3, "x2", "ExitPlanMode", obj{"plan": "# Plan B"}), result(4, "x2", "The user doesn't want to proceed", true, "User rejected tool use"),
		call(5, "x3", "ExitPlanMode", obj{}), result(6, "x3", "ok", false, nil),
	)
	if f.Plan == nil {
		t.Fatal("no plan")
	}
	eq(t, "plan", f.Plan.Text, "# Plan A")
	eq(t, "time", f.Plan.Time.Equal(tsTime(1)), true)

	f = extract(call(1, "x1", "ExitPlanMode", obj{"plan": strings.Repeat("п", 5000)}), result(2, "x1", "ok", false, nil))
	eq(t, "truncated", f.Plan.Truncated, true)
	eq(t, "runes", utf8.RuneCountInString(strings.TrimSuffix(f.Plan.Text, textcut.Marker)), MaxPlanChars)

	f = extract(call(1, "x1", "ExitPlanMode", obj{"plan": "P"}))
	if f.Plan != nil {
		t.Errorf("plan without result = %+v", f.Plan)
	}
}

// spec: TR-26
func TestTR26Usage(t *testing.T) {
	u := func(in, cc, cr int) obj {
		return obj{"input_tokens": in, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": 99}
	}
	cases := []struct {
		name  string
		lines []string
		want  *Usage
	}{
		{"last main-chain message", []string{
			assistantText(1, "m1", u(1, 2, 3), nil), assistantText(2, "m2", u(10, 20, 30), nil),
		}, &Usage{Tokens: 60, InputTokens: 10, CacheCreation: 20, CacheRead: 30, Model: "m2"}},
		{"synthetic and API errors skipped", []string{
			assistantText(1, "m1", u(1, 2, 3), nil),
			assistantText(2, "<synthetic>", u(0, 0, 0), nil),
			assistantText(3, "m2", u(5, 5, 5), obj{"isApiErrorMessage": true}),
			assistantText(4, "m3", u(7, 7, 7), obj{"isSidechain": true}),
		}, &Usage{Tokens: 6, InputTokens: 1, CacheCreation: 2, CacheRead: 3, Model: "m1"}},
		{"stale after a boundary with postTokens", []string{
			assistantText(1, "m1", u(1, 2, 3), nil), boundary(2, obj{"trigger": "auto", "preTokens": 6, "postTokens": 2500}),
		}, &Usage{Tokens: 2500, Model: "m1", FromBoundary: true}},
		{"unknown after a boundary without postTokens", []string{
			assistantText(1, "m1", u(1, 2, 3), nil), boundary(2, obj{"trigger": "auto", "preTokens": 6}),
		}, nil},
		{"fresh again after the next message", []string{
			assistantText(1, "m1", u(1, 2, 3), nil), boundary(2, obj{"postTokens": 2500}), assistantText(3, "m1", u(4, 0, 0), nil),
		}, &Usage{Tokens: 4, InputTokens: 4, Model: "m1"}},
		{"none", []string{prompt(1, "a", nil)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(c.lines...)
			switch {
			case c.want == nil && f.Usage != nil:
				t.Errorf("usage = %+v, want none", f.Usage)
			case c.want != nil && (f.Usage == nil || *f.Usage != *c.want):
				t.Errorf("usage = %+v, want %+v", f.Usage, c.want)
			}
		})
	}
	t.Run("seed usage not carried", func(t *testing.T) {
		x := NewExtractor(&Facts{Usage: &Usage{Tokens: 5}})
		if x.Facts().Usage != nil {
			t.Error("seed usage carried")
		}
	})
}

// spec: TR-27
func TestTR27Compactions(t *testing.T) {
	f := extract(boundary(1, nil), prompt(2, "a", nil), boundary(3, obj{}),
		mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": true}),
		mustJSON(obj{"type": "system", "subtype": "microcompact_boundary"}))
	eq(t, "compactions", f.Compactions, 2)
	x := NewExtractor(&Facts{Compactions: 3})
	x.Feed([]byte(boundary(1, nil)))
	eq(t, "with seed", x.Facts().Compactions, 4)
}

// spec: TR-28
func TestTR28CwdBranchTime(t *testing.T) {
	f := extract(
		prompt(5, "a", obj{"cwd": "/old", "gitBranch": "main"}),
		prompt(9, "b", obj{"cwd": "/new", "gitBranch": "feature"}),
		prompt(7, "c", obj{"cwd": "", "gitBranch": ""}), // preserved entry with an earlier time
		mustJSON(obj{"type": "attachment", "cwd": "/attached", "timestamp": ts(20)}),
	)
	eq(t, "cwd", f.Cwd, "/new")
	eq(t, "branch", f.GitBranch, "feature")
	eq(t, "last time", f.LastTime.Equal(tsTime(9)), true)
}

// spec: TR-29
func TestTR29Matching(t *testing.T) {
	t.Run("re-emitted call counts once", func(t *testing.T) {
		w := call(1, "t1", "Write", obj{"file_path": "/a"})
		r := result(2, "t1", "ok", false, nil)
		f := extract(w, r, boundary(3, nil), w, r)
		eq(t, "edits", f.Files[0].Edits, 1)
		eq(t, "commands", len(f.Commands), 0)
	})
	t.Run("pending calls bounded, oldest forgotten", func(t *testing.T) {
		x := NewExtractor(nil)
		for i := range MaxPending + 10 {
			x.Feed([]byte(call(i, fmt.Sprint("w", i), "Write", obj{"file_path": fmt.Sprint("/f", i)})))
		}
		eq(t, "pending", held(x).pending, MaxPending)
		x.Feed([]byte(result(1, "w0", "ok", false, nil)))                          // forgotten
		x.Feed([]byte(result(1, fmt.Sprint("w", MaxPending+9), "ok", false, nil))) // still waiting
		eqSlice(t, "files", filePaths(x.Facts()), []string{fmt.Sprint("/f", MaxPending+9)})
		if held(x).queued > 2*MaxPending+1 {
			t.Errorf("order queue grew to %d", held(x).queued)
		}
	})
	t.Run("pending bytes bounded", func(t *testing.T) {
		var todos []any
		for i := range MaxTasks {
			todos = append(todos, obj{"content": strings.Repeat("t", MaxTaskChars) + fmt.Sprint(i), "status": "pending"})
		}
		x := NewExtractor(nil)
		for i := range 500 {
			x.Feed([]byte(call(i, fmt.Sprint("td", i), "TodoWrite", obj{"todos": todos})))
		}
		if held(x).bytes > MaxPendingBytes {
			t.Errorf("pending calls hold %d bytes", held(x).bytes)
		}
		if held(x).pending >= 500 || held(x).pending == 0 {
			t.Errorf("%d calls pending", held(x).pending)
		}
		x.Feed([]byte(result(600, "td499", "ok", false, nil)))
		eq(t, "todos", len(x.Facts().Todos), MaxTasks)
		eq(t, "pending bytes after", held(x).bytes >= 0, true)
	})
	t.Run("a call written twice before its result counts once", func(t *testing.T) {
		c := call(1, "b1", "Bash", obj{"command": "make"})
		f := extract(c, c, result(2, "b1", "ok", false, nil))
		eq(t, "commands", len(f.Commands), 1)
		eq(t, "outcome", f.Commands[0].Outcome, OutcomeOK)
	})
	t.Run("files bounded", func(t *testing.T) {
		x := NewExtractor(nil)
		for i := range 3*MaxFiles + 5 {
			id := fmt.Sprint("w", i)
			x.Feed([]byte(call(i, id, "Edit", obj{"file_path": fmt.Sprint("/f", i)})))
			x.Feed([]byte(result(i, id, "ok", false, nil)))
		}
		f := x.Facts()
		eq(t, "files", len(f.Files), MaxFiles)
		eq(t, "newest", f.Files[0].Path, fmt.Sprint("/f", 3*MaxFiles+4))
		if held(x).files > 2*MaxFiles {
			t.Errorf("file map holds %d", held(x).files)
		}
	})
}

// spec: TR-30
func TestTR30Stats(t *testing.T) {
	x := NewExtractor(nil)
	for _, l := range []string{prompt(1, "a", nil), "", "{bad", `{"type":"attachment","x":1}`, `[1,2]`} {
		x.Feed([]byte(l))
	}
	x.SkipLong()
	x.FeedLast([]byte(`{"type":"user","message":`))
	st := x.Facts().Stats
	eq(t, "lines", st.Lines, 7)
	eq(t, "decoded", st.Decoded, 1)
	eq(t, "corrupt", st.Corrupt, 1)
	eq(t, "skipped long", st.SkippedLong, 1)
	eq(t, "torn", st.TornLastLine, true)
}

// spec: TR-31
func TestTR31FeedDoesNotKeepTheLine(t *testing.T) {
	x := NewExtractor(nil)
	buf := []byte(prompt(1, "keep me", nil))
	x.Feed(buf)
	buf2 := []byte(call(2, "w1", "Write", obj{"file_path": "/keep/me"}))
	x.Feed(buf2)
	for i := range buf {
		buf[i] = 'X'
	}
	for i := range buf2 {
		buf2[i] = 'Y'
	}
	x.Feed([]byte(result(3, "w1", "ok", false, nil)))
	f := x.Facts()
	eqSlice(t, "prompts", promptTexts(f), []string{"keep me"})
	eqSlice(t, "files", filePaths(f), []string{"/keep/me"})
	// Facts is a fresh value: changing it changes nothing inside.
	f.Prompts[0].Text = "changed"
	f.Files[0].Path = "changed"
	g := x.Facts()
	eq(t, "prompt again", g.Prompts[0].Text, "keep me")
	eq(t, "file again", g.Files[0].Path, "/keep/me")
}

// spec: TR-9
func TestTR9SeedCarriedForward(t *testing.T) {
	seed := &Facts{
		Prompts:     []Prompt{{Text: "p1"}, {Text: "p2"}},
		Files:       []FileEdit{{Path: "/b", Edits: 2, LastTool: "Edit", LastTime: tsTime(2)}, {Path: "/a", Edits: 1, LastTool: "Write", LastTime: tsTime(1)}},
		Commands:    []Command{{Tool: "Bash", Command: "make", Outcome: OutcomeOK}},
		Todos:       []Task{{Subject: "t", Status: "pending"}},
		Tasks:       []Task{{ID: "1", Subject: "s", Status: "pending"}},
		Failures:    []Failure{{Tool: "Read", Input: "/x", Error: "no"}},
		Plan:        &Plan{Text: "plan"},
		Compactions: 1,
		Cwd:         "/seed",
		GitBranch:   "seed-branch",
	}
	x := NewExtractor(seed)
	x.Feed([]byte(call(10, "e1", "Edit", obj{"file_path": "/a"})))
	x.Feed([]byte(result(11, "e1", "ok", false, nil)))
	x.Feed([]byte(call(12, "u1", "TaskUpdate", obj{"taskId": "1", "status": "completed"})))
	x.Feed([]byte(result(13, "u1", "ok", false, obj{"success": true})))
	x.Feed([]byte(prompt(14, "p3", obj{"cwd": "/now"})))
	f := x.Facts()
	eqSlice(t, "prompts", promptTexts(f), []string{"p1", "p2", "p3"})
	eqSlice(t, "files", filePaths(f), []string{"/a", "/b"})
	eq(t, "edits of /a", f.Files[0].Edits, 2)
	eq(t, "last tool of /a", f.Files[0].LastTool, "Edit")
	eq(t, "commands", len(f.Commands), 1)
	eqSlice(t, "todos", f.Todos, seed.Todos)
	eqSlice(t, "tasks", f.Tasks, []Task{{ID: "1", Subject: "s", Status: "completed"}})
	eq(t, "failures", len(f.Failures), 1)
	eq(t, "plan", f.Plan.Text, "plan")
	eq(t, "compactions", f.Compactions, 1)
	eq(t, "cwd", f.Cwd, "/now")
	eq(t, "branch", f.GitBranch, "main")
	// The seed is not changed.
	eq(t, "seed edits", seed.Files[1].Edits, 1)
	eq(t, "seed task", seed.Tasks[0].Status, "pending")
}

// spec: TR-33
func TestTR33Totals(t *testing.T) {
	var lines []string
	for i := range 12 {
		lines = append(lines, prompt(i, fmt.Sprint("prompt ", i), nil))
	}
	// The same prompt written again (a re-emitted entry) counts once.
	lines = append(lines, prompt(11, "prompt 11", nil))
	for i := range 30 {
		id := fmt.Sprint("b", i)
		lines = append(lines, call(100+2*i, id, "Bash", obj{"command": fmt.Sprint("false ", i)}),
			result(101+2*i, id, "Exit code 1\nno", i%3 == 0, nil))
	}
	// A call written again before and after its result counts once.
	lines = append(lines, call(100, "b0", "Bash", obj{"command": "false 0"}))
	f := extract(lines...)
	eq(t, "prompts kept", len(f.Prompts), MaxPrompts)
	eq(t, "commands kept", len(f.Commands), MaxCommands)
	eq(t, "failures kept", len(f.Failures), MaxFailures)
	eq(t, "totals", f.Totals, Totals{Prompts: 12, Commands: 30, Failures: 10})

	t.Run("a last-prompt entry counts as the prompt it stands for", func(t *testing.T) {
		x := NewExtractor(nil)
		x.Feed([]byte(prompt(1, "one", nil)))
		x.Feed([]byte(lastPrompt("two")))
		eq(t, "with last-prompt", x.Facts().Totals.Prompts, 2)
		x.Feed([]byte(prompt(2, "two", nil)))
		eq(t, "after the typed prompt", x.Facts().Totals.Prompts, 2)
	})
	t.Run("carried by the seed, at least its lists' lengths", func(t *testing.T) {
		x := NewExtractor(&Facts{Prompts: []Prompt{{Text: "a"}}, Commands: []Command{{Command: "x"}, {Command: "y"}},
			Totals: Totals{Prompts: 40, Commands: 1}})
		x.Feed([]byte(prompt(1, "b", nil)))
		eq(t, "totals", x.Facts().Totals, Totals{Prompts: 41, Commands: 2, Failures: 0})
	})
}

// holding is what an Extractor's builder holds (facts.Builder.Held).
type holding struct{ pending, queued, bytes, files int }

func held(x *Extractor) holding {
	var h holding
	h.pending, h.queued, h.bytes, h.files = x.b.Held()
	return h
}
