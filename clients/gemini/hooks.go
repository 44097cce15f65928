package gemini

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	geminireader "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Gemini CLI's hooks (specs/precompact.md PC-43 to PC-46, specs/watch.md
// WA-36 to WA-40): PreCompress is awaited before every model request,
// compression or not, and nothing runs after a compression; the chat file
// shows one once it happened, and BeforeAgent's additionalContext is the
// way to the model.

// Gemini CLI 0.61.0's compression threshold: the settings'
// model.compressionThreshold, else 0.5 of the model's token limit
// (ChatCompressionService, tokenLimit).
const (
	geminiDefaultThreshold = 0.5
	geminiTokenLimit       = 1 << 20
	geminiGemmaTokenLimit  = 256000
)

// IsHook reports a hook run by Gemini CLI: its events, or its chat
// file as the transcript.
func IsHook(p hookio.Payload) bool {
	return p.HookEventName == "PreCompress" || p.HookEventName == "BeforeAgent" || geminireader.IsChatPath(p.TranscriptPath)
}

// Skip says whether a PreCompress can compress nothing, so that no
// snapshot is taken (PC-43): an automatic one whose chat's last prompt
// token count is below the threshold Gemini CLI compares it with. A manual
// one, or one whose count the file does not tell, takes the snapshot.
func Skip(p hookio.Payload, getenv func(string) string) (why string, skip bool) {
	if p.HookEventName != "PreCompress" || p.Trigger != "auto" {
		return "", false
	}
	tokens, model, ok := geminireader.LastFill(p.TranscriptPath)
	if !ok {
		return "", false
	}
	limit := Limit(model)
	threshold := threshold(getenv, p.Cwd)
	due := int64(threshold * float64(limit))
	if tokens >= due {
		return "", false
	}
	return fmt.Sprintf("no compression due: %d prompt tokens, Gemini CLI compresses from %d (%.2f of %d)", tokens, due, threshold, limit), true
}

// Limit is Gemini CLI 0.61.0's tokenLimit for model.
func Limit(model string) int64 {
	if strings.HasPrefix(model, "gemma-4") {
		return geminiGemmaTokenLimit
	}
	return geminiTokenLimit
}

// threshold is model.compressionThreshold from the project's
// .gemini/settings.json, else the user's, else the default. A threshold
// the client takes from its server (an experiment flag) is not known here;
// the default stands for it.
func threshold(getenv func(string) string, cwd string) float64 {
	var files []string
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".gemini", "settings.json"))
	}
	host := settings.DefaultHost()
	host.Getenv = getenv
	if home, err := Home(host); err == nil {
		files = append(files, filepath.Join(home, "settings.json"))
	}
	for _, f := range files {
		data, _, err := settings.ReadFile(f)
		if err != nil {
			continue
		}
		std, err := hujson.Standardize(data)
		if err != nil {
			continue
		}
		var s struct {
			Model struct {
				CompressionThreshold *float64 `json:"compressionThreshold"`
			} `json:"model"`
		}
		if json.Unmarshal(std, &s) == nil && s.Model.CompressionThreshold != nil && *s.Model.CompressionThreshold > 0 {
			return *s.Model.CompressionThreshold
		}
	}
	return geminiDefaultThreshold
}

// BeforeAgent hands over, with the turn's prompt, the pointer to the
// snapshot of the compression the chat file shows last, once (WA-36 to
// WA-39): nothing when the file shows none, when that compression has no
// snapshot of this session taken for it, or when its pointer went before.
func BeforeAgent(opts *handover.WatchOptions, p hookio.Payload, sid string, start time.Time, entry *hookio.Entry) {
	if p.TranscriptPath == "" || !isRegularFile(p.TranscriptPath) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.EffectiveTimeout())
	defer cancel()
	chat, err := geminireader.Read(ctx, p.TranscriptPath, geminireader.Options{Cwd: p.Cwd})
	if err != nil {
		entry.Warnings = append(entry.Warnings, "reading the chat: "+err.Error())
	}
	if chat == nil || len(chat.Compressions) == 0 {
		return
	}
	n := len(chat.Compressions)
	last := chat.Compressions[n-1]
	var after time.Time
	if n > 1 {
		after = chat.Compressions[n-2].Time
	}
	store := &snapshot.Store{Dir: opts.Dir, Now: opts.Now}
	choice, err := selectsnap.ForGeminiCompression(store, sid, after, last.Time, chat.Responses)
	switch {
	case err != nil:
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "choosing the snapshot: "+err.Error()
		return
	case choice == nil:
		// Logged once per compression would need state; the log says it
		// each prompt until the next compression, which is rare.
		entry.Outcome, entry.Detail = hookio.OutcomeNone, fmt.Sprintf("compression of %s: no snapshot of this session taken for it", last.Time.UTC().Format(time.RFC3339))
		return
	case choice.Delivered:
		return
	}
	rec := choice.Record
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	projectDir := cmp.Or(opts.Getenv("GEMINI_PROJECT_DIR"), gitRoot, rec.Cwd)
	sf := snapshot.FindStateFile(ctx, opts.EffectiveStateFileName(), []string{projectDir, gitRoot, rec.Cwd, p.Cwd})
	mdPath := choice.Entry.MDPath
	if mdPath == "" {
		mdPath = filepath.Join(opts.Dir, rec.Name+".md")
	}
	pointer := restore.Pointer(restore.PointerInput{Record: rec, MDPath: mdPath, ProjectDir: projectDir,
		StateFile: sf, Lang: opts.Lang, MaxChars: opts.EffectiveMaxChars()})
	out, err := hookio.EventOutput("BeforeAgent", restore.ForClient(string(transcript.FormatGemini), pointer)) // PO-38
	if err == nil {
		// Recorded first: a pointer written but not recorded would go again.
		err = snapshot.WriteDelivery(opts.Dir, rec.Name, snapshot.Delivery{SessionID: sid, At: start, Event: "BeforeAgent", TranscriptSize: chat.Size})
		if err == nil {
			_, err = opts.Out.Write(out)
		}
	}
	if err != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "pointer not handed over: "+err.Error()
		return
	}
	entry.Outcome, entry.Snapshot = hookio.OutcomeOK, rec.Name
	entry.Detail = "pointer handed over with the prompt after the compression of " + last.Time.UTC().Format(time.RFC3339)
}

// isRegularFile reports a regular file at p.
func isRegularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
