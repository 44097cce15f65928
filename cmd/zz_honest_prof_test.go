package cmd

import "testing"

func TestZZHonestProf(t *testing.T) {
	s := auditSession("/tmp/honest_b32k.jsonl", nil, nil, 64<<20)
	t.Log(len(s.Compactions), s.Error)
}
