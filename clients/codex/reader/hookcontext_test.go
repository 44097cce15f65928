package reader

import "testing"

// spec: AU-15
// A developer message's content items of kind hooks.additional_context are
// hook contexts, in the line's order, an elided text given by its length;
// other items, other roles and other records are none.
func TestHookContexts(t *testing.T) {
	line := []byte(`{"timestamp":"2026-01-02T03:04:05.5Z","type":"response_item","payload":{"type":"message","role":"developer",` +
		`"content":[{"type":"input_text","text":"other"},{"type":"input_text","text":"[elided 812 characters]"},{"type":"input_text","text":"ünïcode"}],` +
		`"internal_chat_message_metadata_passthrough":{"content_item_kinds":["other","hooks.additional_context","hooks.additional_context"]}}}`)
	hcs := Reader{}.HookContexts(line)
	if len(hcs) != 2 || !hcs[0].Elided || hcs[0].Chars != 812 || hcs[0].Text != "" || hcs[0].Time.IsZero() ||
		hcs[1].Elided || hcs[1].Text != "ünïcode" || hcs[1].Chars != 7 || hcs[1].Offset != 0 {
		t.Errorf("%+v", hcs)
	}
	for _, l := range []string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"text":"x"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["hooks.additional_context"]}}}`,
		`{"type":"event_msg","payload":{"type":"message","role":"developer","content":[{"text":"x"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["hooks.additional_context"]}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["hooks.additional_context"]}}}`,
		`not json hooks.additional_context"`,
	} {
		if hcs := (Reader{}).HookContexts([]byte(l)); hcs != nil {
			t.Errorf("%s: %+v", l, hcs)
		}
	}
	for s, want := range map[string]int{"[elided 812 characters]": 812, "[elided 0 characters]": 0, "[elided x characters]": -1, "812 characters": -1} {
		if n, ok := elidedChars(s); ok != (want >= 0) || ok && n != want {
			t.Errorf("elidedChars(%q) = %d, %v", s, n, ok)
		}
	}
}
