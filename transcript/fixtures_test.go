package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// ownFixtureDir holds the real transcripts this project recorded with the
// client (testdata/cc2.1.328/README.md): every clone has them.
var ownFixtureDir = filepath.Join("testdata", "cc2.1.328")

// fixtureDir holds third-party real transcripts next to the project, an
// extra: tests over them skip, saying how many and why, when it is absent.
var fixtureDir = filepath.Join("..", "..", "shared", "fixtures", "transcripts")

type wantFile struct {
	path  string
	edits int
	tool  string
}

// wantCommand: the command's first line, its length in runes, the outcome
// and the exit code (-1: none).
type wantCommand struct {
	firstLine string
	runes     int
	outcome   string
	exitCode  int
}

type fixtureCase struct {
	file        string
	cut         int64 // the transcript as it was just before this offset (a compact_boundary); -1: whole
	todos       []string
	compactions int
	prompts     []string
	files       []wantFile
	commands    []wantCommand
}

// The project's own transcripts, the hooks' session (E2E-5, E2E-6).
const (
	manualProject = "/tmp/TestE2EE2E5_ManualCompaction1925502874/001/проект демо"
	autoProject   = "/tmp/TestE2EE2E6_AutoCompaction3850330651/001/проект авто"
	e2ePrompt1    = "Создай hello.txt with a greeting — «привет» and `quotes`"
	e2ePrompt2    = "Fix the greeting, then run the failing test:\n\n## step\n```sh\n./test.sh\n```"
)

// ownFixtureCases and fixtureCases were read off the transcripts by hand (a
// separate reading of the JSON with python3, following the rules of
// specs/transcript.md), cut just before each compaction boundary, and whole.
// They are never produced by this package.
var ownFixtureCases = []fixtureCase{
	{
		file: "manual-compaction.jsonl", cut: 55293,
		compactions: 0,
		prompts:     []string{e2ePrompt1, e2ePrompt2},
		files:       []wantFile{{manualProject + "/hello.txt", 2, "Edit"}},
		commands: []wantCommand{
			{"git status --short", 18, "ok", -1},
			{"printf 'FAIL: TestGreeting\\n' >&2; exit 3", 41, "error", 3},
		},
	},
	{
		file: "manual-compaction.jsonl", cut: -1,
		compactions: 1,
		prompts:     []string{e2ePrompt1, e2ePrompt2, "What was I doing?"},
		files:       []wantFile{{manualProject + "/hello.txt", 2, "Edit"}},
		commands: []wantCommand{
			{"git status --short", 18, "ok", -1},
			{"printf 'FAIL: TestGreeting\\n' >&2; exit 3", 41, "error", 3},
		},
	},
	{
		file: "auto-compaction.jsonl", cut: 39998,
		compactions: 0,
		prompts:     []string{e2ePrompt1},
		files:       []wantFile{{autoProject + "/hello.txt", 1, "Write"}},
		commands:    []wantCommand{{"git status --short", 18, "ok", -1}},
	},
	{
		file: "auto-compaction.jsonl", cut: -1,
		compactions: 1,
		prompts:     []string{e2ePrompt1, "What next?"},
		files:       []wantFile{{autoProject + "/hello.txt", 1, "Write"}},
		commands:    []wantCommand{{"git status --short", 18, "ok", -1}},
	},
}

var fixtureCases = []fixtureCase{
	{
		file: "cc2.1.328-two-compactions-cyrillic.jsonl", cut: 57939,
		todos: nil, compactions: 0,
		prompts: []string{
			"Создай файл заметок notes/план.md и план работ",
			"Now refactor src/app.py to use a main() function and run it",
		},
		files: []wantFile{
			{"/home/dev/src/заметки-demo/src/app.py", 1, "Edit"},
			{"/home/dev/src/заметки-demo/notes/план.md", 1, "Write"},
		},
		commands: []wantCommand{
			{"python3 src/app.py", 18, "ok", -1},
			{"python3 -m pytest -q tests", 26, "error", 1},
		},
	},
	{
		file: "cc2.1.328-two-compactions-cyrillic.jsonl", cut: 121799,
		todos: nil, compactions: 1,
		prompts: []string{
			"Создай файл заметок notes/план.md и план работ",
			"Now refactor src/app.py to use a main() function and run it",
			"Add a tests/test_app.py with one test, then commit nothing yet",
			"Запусти тесты ещё раз и обнови план в notes/план.md",
		},
		files: []wantFile{
			{"/home/dev/src/заметки-demo/notes/план.md", 2, "Edit"},
			{"/home/dev/src/заметки-demo/tests/test_app.py", 1, "Write"},
			{"/home/dev/src/заметки-demo/src/app.py", 1, "Edit"},
		},
		commands: []wantCommand{
			{"python3 src/app.py", 18, "ok", -1},
			{"python3 -m pytest -q tests", 26, "error", 1},
			{"git status --short", 18, "ok", -1},
			{"python3 -m pytest -q tests || true", 34, "ok", -1},
		},
	},
	{
		file: "ccviewer-fe5e1c67-multiedit-todowrite.jsonl", cut: -1,
		todos: []string{"Set up Next.js project structure and dependencies: completed", "Create core TODO data models and types: completed", "Build TODO components (TodoItem, TodoList, AddTodo): completed", "Implement state management and CRUD operations: completed", "Create main page layout and integrate components: completed"}, compactions: 0,
		prompts: []string{
			"Thanks! Please update CLAUDE.md for current changes",
		},
		files: []wantFile{
			{"/path/to/Demo/CLAUDE.md", 1, "Write"},
		},
		commands: []wantCommand{},
	},
	{
		file: "entirecli-e58c-compaction.jsonl", cut: 121889,
		todos: []string{"Create generic RunCommandInteractive in testenv.go: completed", "Move waitForPromptAndRespond to testenv.go: completed", "Update RunResumeInteractive to use generic helper: in_progress", "Document ACCESSIBLE=1 requirement: completed", "Run tests to verify refactor: pending"}, compactions: 0,
		prompts: []string{
			"yes please commit, then we should do a refactor to centralise this interactive pty stuff (please also note the ACCESSIBLE requirement)",
		},
		files: []wantFile{
			{"/Users/alex/workspace/cli/cmd/entire/cli/integration_test/interactive.go", 1, "Write"},
		},
		commands: []wantCommand{
			{"git add -A && git commit -m \"$(cat <<'EOF'", 617, "ok", -1},
		},
	},
	{
		file: "reliability-hello-world.jsonl", cut: -1,
		todos: nil, compactions: 0,
		prompts: []string{
			"Write a shell script called hello.sh that prints \"Hello world\" and run it.",
		},
		files: []wantFile{
			{"/tmp/tmp74wiyiny/hello.sh", 1, "Write"},
		},
		commands: []wantCommand{
			{"chmod +x /tmp/tmp74wiyiny/hello.sh && /tmp/tmp74wiyiny/hello.sh", 63, "ok", -1},
		},
	},
	{
		file: "reliability-python-to-rust-port.jsonl", cut: -1,
		todos: []string{"Initialize Rust library project structure: completed", "Port string_utils module: completed", "Port math_utils module: completed", "Port list_utils module: completed", "Port dict_utils module: completed", "Port validation module: completed", "Run tests and ensure 100% coverage: completed", "Update Justfile for Rust: completed", "Delete Python source files: completed"}, compactions: 0,
		prompts: []string{
			"Port this Python project to Rust. Create a standalone Rust library (no Python bindings needed). Delete all the Python source files when you're done (but keep the Justfile - update it to run Rust tests instead). Don't stop until all functions are ported, tests pass, and you have 100% coverage. You can ask me questions if you need clarification.",
		},
		files: []wantFile{
			{"/tmp/tmpqwh7888i/Justfile", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/validation.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/dict_utils.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/list_utils.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/math_utils.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/string_utils.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/src/lib.rs", 1, "Write"},
			{"/tmp/tmpqwh7888i/Cargo.toml", 1, "Edit"},
		},
		commands: []wantCommand{
			{"cargo init --lib --name python_utils", 36, "ok", -1},
			{"cargo test 2>&1", 15, "ok", -1},
			{"cargo install cargo-llvm-cov 2>&1 | tail -20", 44, "ok", -1},
			{"cargo llvm-cov --fail-under-lines 100 2>&1", 42, "ok", -1},
			{"cargo llvm-cov --html 2>&1 | tail -10", 37, "ok", -1},
			{"rm /tmp/tmpqwh7888i/src/dict_utils.py /tmp/tmpqwh7888i/src/__init__.py /tmp/tmpqwh7888i/src/math_utils.py /tmp/tmpqwh7888i/src/list_utils.py /tmp/tmpqwh7888i/src/string_utils.py /tmp/tmpqwh7888i/src/validation.py", 212, "ok", -1},
			{"rm -r /tmp/tmpqwh7888i/tests/", 29, "ok", -1},
			{"rm /tmp/tmpqwh7888i/pyproject.toml /tmp/tmpqwh7888i/uv.lock", 59, "ok", -1},
			{"just check 2>&1", 15, "ok", -1},
			{"just lint 2>&1", 14, "ok", -1},
			{"just format 2>&1", 16, "ok", -1},
			{"find /tmp/tmpqwh7888i -type f \\( -name \"*.rs\" -o -name \"Cargo.toml\" -o -name \"Justfile\" -o -name \".gitignore\" \\) | head -20", 123, "ok", -1},
			{"git status", 10, "ok", -1},
			{"git log --oneline -3", 20, "ok", -1},
			{"git add -A && git commit -m \"$(cat <<'EOF'", 577, "ok", -1},
			{"git status", 10, "ok", -1},
		},
	},
	{
		file: "spotter-258c7280-subagent-acompact.jsonl", cut: -1,
		todos: nil, compactions: 0,
		prompts:  []string{},
		files:    []wantFile{},
		commands: []wantCommand{},
	},
	{
		file: "spotter-258c7280.jsonl", cut: 1927470,
		todos: nil, compactions: 0,
		prompts: []string{
			"Implement spotter-gqc",
		},
		files: []wantFile{
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter_web/live/project_review_live.ex", 4, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/test/spotter_web/live/project_review_live_test.exs", 4, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/mix.exs", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/config/test.exs", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter_web/live/pane_list_live.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter_web/router.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/test/spotter/transcripts/resources_test.exs", 2, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/priv/repo/migrations/20260211205820_add_state_to_annotations.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/annotation.ex", 4, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/test/spotter/services/transcript_renderer_test.exs", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter_web/live/session_live.ex", 6, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/assets/js/app.js", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/services/transcript_renderer.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/priv/repo/migrations/20260211203856_add_annotation_message_refs_and_source.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/annotation_message_ref.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/message.ex", 1, "Edit"},
		},
		commands: []wantCommand{
			{"mix ash.codegen add_state_to_annotations --yes 2>&1", 51, "ok", -1},
			{"mix ecto.migrate 2>&1", 21, "ok", -1},
			{"mix compile --warnings-as-errors 2>&1 && mix test test/spotter/transcripts/resources_test.exs 2>&1 | tail -10", 109, "ok", -1},
			{"mix test 2>&1 | tail -5", 23, "ok", -1},
			{"mix credo --strict 2>&1 | tail -5", 33, "ok", -1},
			{"bd close spotter-gqc.4 2>&1", 27, "ok", -1},
			{"git add lib/spotter/transcripts/annotation.ex priv/repo/migrations/20260211205820_add_state_to_annotations.exs priv/resource_snapshots/repo/annotations/20260211205820.json test/spotter/transcripts/resources_test.exs .beads/ && git commit -m \"$(cat <<'EOF'", 618, "ok", -1},
			{"bd update spotter-gqc.5 --status in_progress 2>&1", 49, "ok", -1},
			{"mix compile --warnings-as-errors 2>&1", 37, "ok", -1},
			{"mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 64, "error", 1},
			{"mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 64, "error", 2},
			{"mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 64, "error", 2},
			{"mix deps.get 2>&1 | tail -5", 27, "ok", -1},
			{"mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 64, "error", 2},
			{"mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 64, "ok", -1},
			{"mix test 2>&1 | tail -5", 23, "ok", -1},
			{"mix credo --strict 2>&1 | tail -5", 33, "ok", -1},
			{"bd close spotter-gqc.5 2>&1", 27, "ok", -1},
			{"git add lib/spotter_web/live/project_review_live.ex lib/spotter_web/live/pane_list_live.ex lib/spotter_web/router.ex test/spotter_web/live/project_review_live_test.exs config/test.exs mix.exs mix.lock .beads/ && git commit -m \"$(cat <<'EOF'", 683, "ok", -1},
			{"bd update spotter-gqc.6 --status in_progress 2>&1", 49, "ok", -1},
		},
	},
	{
		file: "spotter-4d5611e5.jsonl", cut: 2107612,
		todos: nil, compactions: 0,
		prompts: []string{
			"Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task.",
			"continue",
		},
		files: []wantFile{
			{"/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/components/transcript_components.ex", 2, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/transcript_computers.ex", 3, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/test/spotter/services/transcript_renderer_test.exs", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter/services/transcript_renderer.ex", 3, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/test/spotter_web/live/subagent_live_test.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/subagent_live.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/session_live.ex", 11, "Edit"},
		},
		commands: []wantCommand{
			{"mix compile 2>&1 | head -20", 27, "ok", -1},
			{"mix test test/spotter_web/live/session_live_test.exs 2>&1", 57, "background", -1},
			{"tail -20 /tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-dov/tasks/b7636e2.output", 96, "ok", -1},
			{"mix test test/spotter_web/live/subagent_live_test.exs 2>&1 | tail -30", 69, "ok", -1},
			{"mix test test/spotter_web/live/session_live_test.exs test/spotter_web/live/subagent_live_test.exs test/spotter/services/transcript_renderer_test.exs 2>&1 | tail -10", 164, "ok", -1},
			{"mix test 2>&1 | tail -10", 24, "ok", -1},
			{"mix credo --strict 2>&1 | tail -15", 34, "ok", -1},
			{"bd close spotter-dov.1 --reason=\"Extracted shared transcript computer and component. Both SessionLive and SubagentLive now use TranscriptComputers (AshComputer) + TranscriptComponents (shared HEEx). All duplicate row-class/render helpers removed. 397 tests pass, including 10 new SubagentLive tests.\"", 300, "ok", -1},
			{"bd ready", 8, "ok", -1},
			{"bd show spotter-dov.2", 21, "ok", -1},
			{"bd update spotter-dov.2 --status in_progress", 44, "ok", -1},
			{"mix compile 2>&1 | head -10", 27, "ok", -1},
			{"mix test test/spotter/services/transcript_renderer_test.exs 2>&1 | tail -40", 75, "ok", -1},
			{"mix test test/spotter/services/transcript_renderer_test.exs 2>&1 | tail -15", 75, "ok", -1},
			{"mix test 2>&1 | tail -5", 23, "ok", -1},
			{"mix credo --strict 2>&1 | tail -10", 34, "ok", -1},
			{"bd close spotter-dov.2 --reason=\"Removed silent 5-line truncation. All tool-result lines preserved with 10-line default-visibility metadata (tool_result_group, result_line_index, result_total_lines, hidden_by_default). Added debug_payload per row. Numbered read output in tool results marked as code with language inferred from Read file extension. 410 tests pass (13 new).\"", 374, "ok", -1},
			{"bd ready", 8, "ok", -1},
			{"bd show spotter-dov.3", 21, "ok", -1},
			{"bd update spotter-dov.3 --status in_progress", 44, "ok", -1},
		},
	},
	{
		file: "spotter-fa812bfe.jsonl", cut: 2911128,
		todos: nil, compactions: 0,
		prompts: []string{
			"Work on bead spotter-a0y. Run bd show spotter-a0y to see the issue details and bd ready to find available subtasks. Start with the first ready task.",
			"continue until all are done",
		},
		files: []wantFile{
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter_web/live/session_live.ex", 7, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter_web/live/pane_list_live.ex", 6, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/priv/static/assets/spotter.css", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/test/spotter/services/transcript_tail_worker_test.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter_web/controllers/session_hook_controller.ex", 6, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/application.ex", 2, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/services/transcript_tail_supervisor.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/services/transcript_tail_worker.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/scripts/tail_wrapper.sh", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/services/transcript_tail_adapter/tail_f.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/services/transcript_tail_adapter.ex", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/test/spotter/transcripts/jobs/sync_transcripts_test.exs", 4, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/transcripts/jobs/sync_transcripts.ex", 3, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/transcripts/session.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/transcripts/message.ex", 2, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/priv/repo/migrations/20260212165422_add_unique_index_messages_session_uuid.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter/services/active_session_registry.ex", 10, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/test/spotter_web/controllers/session_hook_controller_test.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/test/spotter/services/active_session_registry_test.exs", 1, "Write"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter_web/controllers/hooks_controller.ex", 4, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/spotter-plugin/hooks/hooks.json", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter_web/router.ex", 1, "Edit"},
			{"/home/USER/projects/spotter-worktrees/spotter-a0y/spotter-plugin/scripts/notify-session-end.sh", 1, "Write"},
		},
		commands: []wantCommand{
			{"git status --short 2>&1", 23, "ok", -1},
			{"git add priv/repo/migrations/20260212155510_add_message_upsert_identity.exs priv/resource_snapshots/repo/messages/20260212155510.json .beads/issues.jsonl && git commit -m \"$(cat <<'EOF'", 620, "ok", -1},
			{"git push 2>&1", 13, "ok", -1},
			{"bd show spotter-a0y.3", 21, "ok", -1},
			{"bd update spotter-a0y.3 --status in_progress", 44, "ok", -1},
			{"chmod +x /home/USER/projects/spotter-worktrees/spotter-a0y/scripts/tail_wrapper.sh", 82, "ok", -1},
			{"mix compile --warnings-as-errors 2>&1", 37, "ok", -1},
			{"ls /home/USER/projects/spotter-worktrees/spotter-a0y/priv/scripts/ 2>&1 || echo \"directory does not exist\"", 106, "ok", -1},
			{"mkdir -p /home/USER/projects/spotter-worktrees/spotter-a0y/priv/scripts && mv /home/USER/projects/spotter-worktrees/spotter-a0y/scripts/tail_wrapper.sh /home/USER/projects/spotter-worktrees/spotter-a0y/priv/scripts/tail_wrapper.sh && rmdir /home/USER/projects/spotter-worktrees/spotter-a0y/scripts 2>/dev/null || true", 317, "ok", -1},
			{"mix compile --warnings-as-errors 2>&1", 37, "ok", -1},
			{"mix test test/spotter/services/transcript_tail_worker_test.exs 2>&1", 67, "ok", -1},
			{"mix test 2>&1", 13, "ok", -1},
			{"mix credo --strict lib/spotter/services/transcript_tail_adapter.ex lib/spotter/services/transcript_tail_adapter/tail_f.ex lib/spotter/services/transcript_tail_worker.ex lib/spotter/services/transcript_tail_supervisor.ex lib/spotter_web/controllers/session_hook_controller.ex lib/spotter/application.ex 2>&1", 306, "ok", -1},
			{"bd close spotter-a0y.3 --reason=\"Implemented TranscriptTailAdapter behavior, TailF implementation via Port, TranscriptTailWorker GenServer with debounced ingest, DynamicSupervisor with Registry, tail_wrapper.sh, wired session-end to stop workers.\"", 247, "ok", -1},
			{"git add lib/spotter/services/transcript_tail_adapter.ex lib/spotter/services/transcript_tail_adapter/tail_f.ex lib/spotter/services/transcript_tail_worker.ex lib/spotter/services/transcript_tail_supervisor.ex lib/spotter/application.ex lib/spotter_web/controllers/session_hook_controller.ex priv/scripts/tail_wrapper.sh test/spotter/services/transcript_tail_worker_test.exs .beads/issues.jsonl && git commit -m \"$(cat <<'EOF'", 835, "error", -1},
			{"mix format 2>&1", 15, "ok", -1},
			{"git add lib/spotter/services/transcript_tail_adapter.ex lib/spotter/services/transcript_tail_adapter/tail_f.ex lib/spotter/services/transcript_tail_worker.ex lib/spotter/services/transcript_tail_supervisor.ex lib/spotter/application.ex lib/spotter_web/controllers/session_hook_controller.ex priv/scripts/tail_wrapper.sh test/spotter/services/transcript_tail_worker_test.exs .beads/issues.jsonl && git commit -m \"$(cat <<'EOF'", 835, "ok", -1},
			{"git push 2>&1", 13, "ok", -1},
			{"bd show spotter-a0y.4", 21, "ok", -1},
			{"bd update spotter-a0y.4 --status in_progress", 44, "ok", -1},
		},
	},
	{
		file: "spotter-short.jsonl", cut: -1,
		todos: nil, compactions: 0,
		prompts: []string{
			"mix phx.server doesnt seem to start",
		},
		files: []wantFile{},
		commands: []wantCommand{
			{"mix phx.server 2>&1 | head -80", 30, "rejected", -1},
		},
	},
	{
		file: "spotter-tool_heavy.jsonl", cut: -1,
		todos: nil, compactions: 0,
		prompts: []string{
			"start phoenix in background",
			"scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions",
		},
		files: []wantFile{},
		commands: []wantCommand{
			{"mix phx.server", 14, "background", -1},
			{"tail -5 /tmp/claude-1000/-home-marco-projects-spotter/tasks/bae407b.output", 74, "ok", -1},
		},
	},
}

// cutFixture writes the first cut bytes of a transcript in dir (all with
// cut < 0), in this run's layout (TR-56), to a temporary file, the
// transcript as precompact saw it.
func cutFixture(t *testing.T, dir, name string, cut int64) string {
	t.Helper()
	return fixture(t, filepath.Join(dir, name)).cut(t, cut)
}

// needFixtures skips a test over n of the shared transcripts when their
// folder is absent, saying how many did not run and why (go test -v shows
// it), since a clone alone does not have them.
func needFixtures(t *testing.T, n int) {
	t.Helper()
	if _, err := os.Stat(fixtureDir); err != nil {
		t.Skipf("%d shared transcript case(s) not run: %s is not there (%v). They are an extra next to the project; the project's own real transcripts in %s ran.",
			n, fixtureDir, err, ownFixtureDir)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// spec: TR-16, TR-19, TR-20, TR-22, TR-27
func TestFixtures(t *testing.T) {
	t.Run("own", func(t *testing.T) { checkFixtures(t, ownFixtureDir, ownFixtureCases) })
	t.Run("shared", func(t *testing.T) {
		needFixtures(t, len(fixtureCases))
		checkFixtures(t, fixtureDir, fixtureCases)
	})
}

func checkFixtures(t *testing.T, dir string, cases []fixtureCase) {
	for _, c := range cases {
		t.Run(c.file+"@"+itoa(c.cut), func(t *testing.T) {
			res := readAll(t, cutFixture(t, dir, c.file, c.cut))
			f := res.Facts
			eq(t, "corrupt", f.Stats.Corrupt, 0)
			eq(t, "partial", res.Partial, false)
			eqSlice(t, "prompts", promptTexts(f), c.prompts)
			var files []wantFile
			for _, g := range f.Files {
				files = append(files, wantFile{g.Path, g.Edits, g.LastTool})
			}
			if len(c.files) == 0 && len(files) == 0 {
				files = nil
			}
			eqSlice(t, "files", files, c.files)
			var cmds []wantCommand
			for _, g := range f.Commands {
				code := -1
				if g.ExitCode != nil {
					code = *g.ExitCode
				}
				cmds = append(cmds, wantCommand{firstLine(g.Command), utf8.RuneCountInString(g.Command), g.Outcome, code})
			}
			eqSlice(t, "commands", cmds, c.commands)
			var todos []string
			for _, td := range f.Todos {
				todos = append(todos, td.Subject+": "+td.Status)
			}
			eqSlice(t, "todos", todos, c.todos)
			eq(t, "compactions", f.Compactions, c.compactions)
		})
	}
}

func itoa(n int64) string {
	if n < 0 {
		return "whole"
	}
	return strconv.FormatInt(n, 10)
}

// readPlanned reads a transcript file with plan, after finding its last
// boundary.
func readPlanned(t *testing.T, path string, p ReadPlan) Result {
	t.Helper()
	f := open(t, path)
	p.LastBoundary = lastBoundary(t, f)
	res, err := f.Read(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The project's own transcript: the snapshot of its compaction, then a
// reading of the whole file chained on it, gives what a plain reading gives.
//
// spec: TR-7, TR-9, TR-33
func TestOwnFixtureChain(t *testing.T) {
	const name = "manual-compaction.jsonl"
	fx := fixture(t, filepath.Join(ownFixtureDir, name))
	boundary := fx.off(55293)
	read := func(path string, p ReadPlan) Result { return readPlanned(t, path, p) }
	snap := read(fx.cut(t, 55293), ReadPlan{ChainEnd: -1})
	whole := fx.path
	plain := read(whole, ReadPlan{ChainEnd: -1})
	chain := read(whole, ReadPlan{ChainEnd: boundary, Seed: snap.Facts})
	eq(t, "chained", chain.Chained, true)
	eq(t, "read from", chain.ReadFrom, boundary)
	eqSlice(t, "files", chain.Facts.Files, plain.Facts.Files)
	eqSlice(t, "prompts", chain.Facts.Prompts, plain.Facts.Prompts)
	eqDeep(t, "commands", chain.Facts.Commands, plain.Facts.Commands)
	eqSlice(t, "failures", chain.Facts.Failures, plain.Facts.Failures)
	eq(t, "compactions", chain.Facts.Compactions, 1)
	eq(t, "totals", chain.Facts.Totals, Totals{Prompts: 3, Commands: 2, Failures: 1})
	eq(t, "plain totals", plain.Facts.Totals, chain.Facts.Totals)
	if chain.Facts.Stats.BytesRead >= plain.Facts.Stats.BytesRead {
		t.Errorf("chained read %d bytes, plain %d", chain.Facts.Stats.BytesRead, plain.Facts.Stats.BytesRead)
	}
}

// spec: TR-7, TR-9
func TestFixtureChain(t *testing.T) {
	needFixtures(t, 1)
	const name = "cc2.1.328-two-compactions-cyrillic.jsonl"
	fx := fixture(t, filepath.Join(fixtureDir, name))
	first, second := fx.off(57939), fx.off(121799) // its two compact_boundary lines
	read := func(path string, p ReadPlan) Result { return readPlanned(t, path, p) }
	cut1, cut2 := fx.cut(t, 57939), fx.cut(t, 121799)
	whole := fx.path

	// The snapshot at the first compaction, then the one at the second.
	snap1 := read(cut1, ReadPlan{ChainEnd: -1})
	plain2 := read(cut2, ReadPlan{ChainEnd: -1})
	chain2 := read(cut2, ReadPlan{ChainEnd: first, Seed: snap1.Facts})
	eq(t, "chained", chain2.Chained, true)
	eq(t, "read from", chain2.ReadFrom, first)
	eqSlice(t, "files", chain2.Facts.Files, plain2.Facts.Files)
	eqSlice(t, "prompts", chain2.Facts.Prompts, plain2.Facts.Prompts)
	eqDeep(t, "commands", chain2.Facts.Commands, plain2.Facts.Commands)
	eqSlice(t, "failures", chain2.Facts.Failures, plain2.Facts.Failures)
	eq(t, "compactions", chain2.Facts.Compactions, 1)

	// After the second compaction, chained on the second snapshot.
	plain3 := read(whole, ReadPlan{ChainEnd: -1})
	chain3 := read(whole, ReadPlan{ChainEnd: second, Seed: chain2.Facts})
	eq(t, "chained", chain3.Chained, true)
	eqSlice(t, "files", chain3.Facts.Files, plain3.Facts.Files)
	eqSlice(t, "prompts", chain3.Facts.Prompts, plain3.Facts.Prompts)
	eq(t, "compactions", chain3.Facts.Compactions, 2)
	if chain3.Facts.Stats.BytesRead >= plain3.Facts.Stats.BytesRead {
		t.Errorf("chained read %d bytes, plain %d", chain3.Facts.Stats.BytesRead, plain3.Facts.Stats.BytesRead)
	}

	// What postcompact asks: did a compaction happen after a snapshot?
	f := open(t, whole)
	for _, c := range []struct {
		from, to int64
		want     bool
	}{{0, first, false}, {first, first + 1, true}, {first + 1, second, false}, {first + 1, f.Size(), true}} {
		got, err := f.LastBoundaryIn(context.Background(), c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, fmt.Sprintf("LastBoundaryIn(%d,%d)", c.from, c.to), got >= 0, c.want)
	}
}

// The whole headless 2.1.328 fixture, after its second compaction.
//
// spec: TR-21, TR-24, TR-26, TR-28
func TestFixtureAfterCompaction(t *testing.T) {
	needFixtures(t, 1)
	res := readAll(t, fixture(t, filepath.Join(fixtureDir, "cc2.1.328-two-compactions-cyrillic.jsonl")).path)
	f := res.Facts
	if f.Usage == nil || *f.Usage != (Usage{Tokens: 2762, Model: "claude-opus-5-5", FromBoundary: true}) {
		t.Errorf("usage = %+v", f.Usage)
	}
	eq(t, "error line", f.Commands[1].ErrorLine, "/root/.pyenv/versions/3.11.7/bin/python3: No module named pytest")
	eq(t, "failures", len(f.Failures), 2)
	eq(t, "failure 0", f.Failures[0].Tool+" | "+f.Failures[0].Error,
		"TodoWrite | Error: No such tool available: TodoWrite. TodoWrite is disabled for this session, in subagents as well as here.")
	eq(t, "failure 1", f.Failures[1].Tool+" | "+f.Failures[1].Input+" | "+f.Failures[1].Error,
		"Bash | python3 -m pytest -q tests | Exit code 1: /root/.pyenv/versions/3.11.7/bin/python3: No module named pytest")
	eq(t, "cwd", f.Cwd, "/home/dev/src/заметки-demo")
	eq(t, "branch", f.GitBranch, "main")
	eq(t, "last time", f.LastTime.Format("15:04:05.000"), "09:38:13.822")
	eq(t, "todos", len(f.Todos), 0)
}
