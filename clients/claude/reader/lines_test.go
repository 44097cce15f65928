package reader

import (
	"strings"
	"testing"
)

// spec: TR-51
func TestTR51TopType(t *testing.T) {
	for head, want := range map[string]string{
		`{"parentUuid":null,"isSidechain":false,"n":12.5,"ok":true,"type":"user","message":{`: "user",
		` { "a" : "x\"y" , "type" : "attachment"`:                                             "attachment",
		`{"message":{"x":1},"type":"assistant"}`:                                              "",
		`{"parentUuid":"u1","isSidechain":fal`:                                                "",
		`["type","user"]`:                                                                     "",
		`{"type":1}`:                                                                          "",
		`{"content":"` + strings.Repeat("x", 100):                                             "",
	} {
		got, known := topType([]byte(head))
		if got != want || known != (want != "") {
			t.Errorf("topType(%.40q) = %q, %v; want %q", head, got, known, want)
		}
	}
}
