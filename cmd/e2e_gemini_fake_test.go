//go:build e2e

package cmd_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A scripted fake of the Gemini API (Generative Language v1beta) on
// loopback, for Gemini CLI (specs/e2e.md E2E-51): the client reaches it
// through GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY and
// security.auth.selectedType "gemini-api-key". It serves
// models/<m>:streamGenerateContent?alt=sse (the turns, SSE),
// :generateContent (the router's JSON, the next-speaker check, the
// compression and its verification) and :countTokens.

// e2eGemCall is a scripted function call.
type e2eGemCall struct {
	Name string
	Args map[string]any
}

// e2eGemReply is one scripted reply to a main request: text, calls and the
// promptTokenCount reported for it.
type e2eGemReply struct {
	Text   string
	Calls  []e2eGemCall
	Tokens int
}

// e2eGemRequest is one request the fake received.
type e2eGemRequest struct {
	Seq int
	// Kind is "main" (a turn's request, answered from the script),
	// "compress", "verify" (the compression's two requests), "json" (a
	// request for a JSON schema: router, next speaker), "count", "side".
	Kind  string
	Texts []string // every text part of the request, in order
}

type e2eGemFake struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	script []e2eGemReply
	next   int
	reqs   []*e2eGemRequest
	last   int // the last main reply's tokens
	// refuseCompress answers the compression requests with HTTP 400 while
	// set: Gemini CLI does not retry it, says "Failed to compress chat
	// history" and keeps the history (an empty answer is retried with
	// backoff for minutes before it fails the same way: measured).
	refuseCompress bool
}

func e2eNewGemFake(t *testing.T) *e2eGemFake {
	f := &e2eGemFake{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *e2eGemFake) URL() string { return f.srv.URL }

// Script appends replies to main requests.
func (f *e2eGemFake) Script(rs ...e2eGemReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, rs...)
}

// RefuseCompress makes the compression requests fail, or succeed again.
func (f *e2eGemFake) RefuseCompress(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuseCompress = on
}

// Requests returns the requests so far.
func (f *e2eGemFake) Requests() []*e2eGemRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*e2eGemRequest(nil), f.reqs...)
}

// Count is how many requests of kind arrived.
func (f *e2eGemFake) Count(kind string) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// Remaining is how many scripted replies are left.
func (f *e2eGemFake) Remaining() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script) - f.next
}

func e2eGemTexts(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["text"].(string); ok {
			*out = append(*out, s)
		}
		for k, e := range x {
			if k != "text" {
				e2eGemTexts(e, out)
			}
		}
	case []any:
		for _, e := range x {
			e2eGemTexts(e, out)
		}
	}
}

func (f *e2eGemFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	method := r.URL.Path[strings.LastIndex(r.URL.Path, ":")+1:]
	var sys, texts []string
	e2eGemTexts(req["systemInstruction"], &sys)
	e2eGemTexts(req["contents"], &texts)
	last := ""
	if len(texts) > 0 {
		last = texts[len(texts)-1]
	}
	gen, _ := req["generationConfig"].(map[string]any)
	tools, _ := req["tools"].([]any)

	f.mu.Lock()
	rec := &e2eGemRequest{Seq: len(f.reqs) + 1, Texts: append(sys, texts...)}
	f.reqs = append(f.reqs, rec)
	var rep e2eGemReply
	switch {
	case method == "countTokens":
		rec.Kind = "count"
	case strings.Contains(strings.Join(sys, "\n"), "state_snapshot"):
		rec.Kind = "compress"
		if strings.Contains(last, "Critically evaluate") {
			rec.Kind = "verify"
		}
		rep = e2eGemReply{Text: fmt.Sprintf("<state_snapshot>E2E-GEMINI-SUMMARY %d</state_snapshot>", f.Count0("compress")), Tokens: max(f.last, 500)}
		if f.refuseCompress {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"code":400,"message":"e2e: compression refused","status":"INVALID_ARGUMENT"}}`)
			return
		}
	case gen != nil && (gen["responseJsonSchema"] != nil || gen["responseSchema"] != nil):
		rec.Kind = "json"
		schema := gen["responseJsonSchema"]
		if schema == nil {
			schema = gen["responseSchema"]
		}
		b, _ := json.Marshal(e2eGemFill(schema))
		if strings.Contains(string(b), "next_speaker") {
			b = []byte(`{"reasoning":"e2e","next_speaker":"user"}`)
		}
		rep = e2eGemReply{Text: string(b), Tokens: 100}
	case len(tools) > 0:
		rec.Kind = "main"
		if f.next < len(f.script) {
			rep = f.script[f.next]
			f.next++
		} else {
			rep = e2eGemReply{Text: "E2E: nothing more scripted."}
		}
		if rep.Tokens == 0 {
			rep.Tokens = 1000
		}
		f.last = rep.Tokens
	default:
		rec.Kind = "side"
		rep = e2eGemReply{Text: "ok", Tokens: 100}
	}
	f.mu.Unlock()

	if method == "countTokens" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens": %d}`, max(len(body)/4, 1))
		return
	}
	if rep.Tokens == 0 {
		rep.Tokens = 1000
	}
	var parts []any
	if rep.Text != "" || len(rep.Calls) == 0 {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	for _, c := range rep.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}})
	}
	usage := map[string]any{"promptTokenCount": rep.Tokens, "candidatesTokenCount": 10, "totalTokenCount": rep.Tokens + 10}
	if method == "streamGenerateContent" {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range parts {
			cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{p}}, "index": 0}
			chunk := map[string]any{"candidates": []any{cand}}
			if i == len(parts)-1 {
				cand["finishReason"] = "STOP"
				chunk["usageMetadata"] = usage
				chunk["modelVersion"] = "e2e-gemini"
			}
			b, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": "e2e-gemini",
	})
}

// Count0 counts requests of kind; the caller holds f.mu.
func (f *e2eGemFake) Count0(kind string) int {
	n := 0
	for _, r := range f.reqs {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// e2eGemFill returns a value that satisfies a Gemini-style JSON schema.
func e2eGemFill(schema any) any {
	m, _ := schema.(map[string]any)
	if m == nil {
		return "e2e"
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch strings.ToLower(fmt.Sprint(m["type"])) {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for k, v := range props {
			out[k] = e2eGemFill(v)
		}
		return out
	case "array":
		return []any{e2eGemFill(m["items"])}
	case "integer", "number":
		return 10
	case "boolean":
		return false
	}
	return "e2e"
}

// Log writes the requests' kinds to the test log, for a failure.
func (f *e2eGemFake) Log(t *testing.T) {
	for _, r := range f.Requests() {
		s := strings.Join(r.Texts, " | ")
		if len(s) > 300 {
			s = s[len(s)-300:]
		}
		t.Logf("gemini request %d %s: …%s", r.Seq, r.Kind, s)
	}
}

// e2eGemSince are the requests after the first n.
func e2eGemSince(reqs []*e2eGemRequest, n int) []*e2eGemRequest {
	if n > len(reqs) {
		return nil
	}
	return reqs[n:]
}
