package snapshot

import (
	"fmt"
	"testing"
	"time"
)

// A folder a clock once ahead filled with Keep snapshots dated a year
// ahead: each new compaction keeps the real snapshots, another session's
// included, and prunes the ones dated ahead instead; the listing, latest
// and the newest of all go by the clock.
// spec: SF-69, SF-37, SF-40, SF-41
func TestNamesAheadOfTheClock(t *testing.T) {
	s := newStore(t)
	s.Keep = 5
	now := s.Now()
	var ahead []string
	for i := range s.Keep {
		// The furthest ahead is saved last, so that latest.json names it.
		r := rec(fmt.Sprintf("ahead%03d-session", i), now.AddDate(1, 0, 0).Add(time.Duration(i)*time.Minute), "")
		mustSave(t, s, r, English)
		ahead = append(ahead, r.Name)
	}
	a := rec("aaaa-real-session", now.Add(-2*time.Minute), "")
	mustSave(t, s, a, English)
	if l, err := s.Latest(); err != nil || l.Name != a.Name {
		t.Errorf("latest.json = %+v, %v, want %s: a name a year ahead is not the newest", l, err, a.Name)
	}
	b := rec("bbbb-real-session", now.Add(-time.Minute), "")
	mustSave(t, s, b, English)
	c := rec("aaaa-real-session", now, "")
	mustSave(t, s, c, English)

	es, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name)
		if e.Ahead != (e.Time.Sub(now) > MaxAhead) {
			t.Errorf("%s: Ahead %v", e.Name, e.Ahead)
		}
	}
	// The three real snapshots, newest first, then the ones dated ahead
	// that were not pruned, nearest to the clock first: the furthest
	// ahead went first.
	want := []string{c.Name, b.Name, a.Name, ahead[0], ahead[1]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries:\n got %v\nwant %v", got, want)
	}
	if l, _ := s.Latest(); l.Name != c.Name {
		t.Errorf("latest.json names %s, want %s", l.Name, c.Name)
	}
	// A name less than a minute ahead is a clock's ordinary skew: it
	// still counts as the newest.
	d := rec("dddd-skewed-session", now.Add(30*time.Second), "")
	mustSave(t, s, d, English)
	if es, _ := s.Entries(); es[0].Name != d.Name || es[0].Ahead {
		t.Errorf("newest entry %s (ahead %v), want %s", es[0].Name, es[0].Ahead, d.Name)
	}
}

// spec: SF-69
func TestNewestFirst(t *testing.T) {
	now := t0
	n := func(d time.Duration, suffix int) Name { return Name{Time: now.Add(d), Suffix: suffix} }
	for _, tc := range []struct {
		a, b Name
		want int
	}{
		{n(0, 0), n(-time.Second, 0), -1},
		{n(-time.Second, 0), n(0, 0), 1},
		{n(0, 2), n(0, 1), -1},
		{n(0, 1), n(0, 1), 0},
		{n(time.Minute, 0), n(0, 0), -1},            // within a minute: by time
		{n(time.Minute+time.Second, 0), n(0, 0), 1}, // further: after every other
		{n(time.Hour, 0), n(-24*time.Hour, 0), 1},
		{n(time.Hour, 0), n(2*time.Hour, 0), -1}, // nearest to the clock first
	} {
		if got := NewestFirst(tc.a, tc.b, now, 0); got != tc.want {
			t.Errorf("NewestFirst(%v, %v) = %d, want %d", tc.a.Time, tc.b.Time, got, tc.want)
		}
	}
}
