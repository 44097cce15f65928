package hookio

import (
	"strings"
	"testing"
)

// spec: PO-C17
func TestPOC17WhatSaysACompactionFailed(t *testing.T) {
	text := func(s string) *string { return &s }
	for _, tc := range []struct {
		p    Payload
		want bool
	}{
		{Payload{}, false},
		{Payload{Status: "completed"}, false},
		{Payload{Status: "completed", Error: text("  ")}, false},
		{Payload{Status: "failed"}, true},
		{Payload{Status: "Failed", Error: text("summary request failed")}, true},
		{Payload{Status: "cancelled"}, true},
		{Payload{Error: text("the stream ended early")}, true},
	} {
		if got, why := tc.p.CompactionFailed(); got != tc.want || got && why == "" {
			t.Errorf("%+v: failed %v (%q), want %v", tc.p, got, why, tc.want)
		}
	}
	// The fields are read from the payload as Codex writes them.
	p, err := ReadPayload(t.Context(), strings.NewReader(`{"session_id":"s","hook_event_name":"PostCompact","trigger":"auto",`+
		`"reason":"context_limit","phase":"pre_turn","implementation":"responses","status":"failed","error":null}`), 0)
	if err != nil || p.Reason != "context_limit" || p.Phase != "pre_turn" || p.Implementation != "responses" || p.Status != "failed" || p.Error != nil {
		t.Errorf("payload %+v, %v", p, err)
	}
}
