package watch

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultThresholds are the thresholds watch uses without --thresholds
// (WA-3): half the window, then 60% and 70%. On a 200,000 window that is
// 100k, 120k and 140k, before the client's own 167k; on 1,000,000 it is
// 500k, 600k and 700k.
const DefaultThresholds = "50%,60%,70%"

// MaxThresholds bounds how many thresholds a session has.
const MaxThresholds = 5

// Threshold is a point of the context fill: a number of tokens, or a
// percentage of the window.
type Threshold struct {
	Tokens  int64
	Percent float64
}

func (t Threshold) String() string {
	if t.Percent > 0 {
		return strconv.FormatFloat(t.Percent, 'f', -1, 64) + "%"
	}
	return strconv.FormatInt(t.Tokens, 10)
}

// ParseThresholds reads a comma-separated list such as "450k,500k,600k",
// "70%,80%,90%" or "120000,75%" (WA-3): tokens as a number with an optional
// k or M (thousands, millions), or a percentage of the window above 0 and
// below 100. One to MaxThresholds of them.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		t, err := parseThreshold(f)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("no threshold given")
	case len(out) > MaxThresholds:
		return nil, fmt.Errorf("%d thresholds; at most %d", len(out), MaxThresholds)
	}
	return out, nil
}

func parseThreshold(f string) (Threshold, error) {
	bad := fmt.Errorf("threshold %q: want tokens (450k, 1.2M, 120000) or a percentage of the window (70%%)", f)
	if p, ok := strings.CutSuffix(f, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0 && v < 100) {
			return Threshold{}, bad
		}
		return Threshold{Percent: v}, nil
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(f, "k") || strings.HasSuffix(f, "K"):
		mult, f = 1e3, f[:len(f)-1]
	case strings.HasSuffix(f, "m") || strings.HasSuffix(f, "M"):
		mult, f = 1e6, f[:len(f)-1]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
	if err != nil || !(v > 0) || v*mult > 1e9 || math.IsInf(v, 0) {
		return Threshold{}, bad
	}
	return Threshold{Tokens: int64(math.Round(v * mult))}, nil
}

// ParseTokens reads a number of tokens as --window takes it: 200k, 1M,
// 1000000.
func ParseTokens(s string) (int64, error) {
	s = strings.TrimSpace(s)
	t, err := parseThreshold(s)
	if err != nil || t.Percent > 0 {
		return 0, fmt.Errorf("%q: want a number of tokens such as 200k, 1M or 1000000", s)
	}
	return t.Tokens, nil
}

// Resolve turns thresholds into tokens for window w (WA-3): percentages of
// w.Tokens; sorted and without repeats; and, when automatic compaction is
// on, each one that would not come at least (n-i) x 2% of the window
// before the auto-compaction point (i counted from 1 of n) is moved down to
// that point, so that every threshold is met before the client compacts by
// itself, in order.
func Resolve(ts []Threshold, w Window) []int64 {
	var out []int64
	for _, t := range ts {
		v := t.Tokens
		if t.Percent > 0 {
			v = int64(math.Round(float64(w.Tokens) * t.Percent / 100))
		}
		out = append(out, v)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if w.AutoAt > 0 {
		step := w.Tokens * 2 / 100
		n := len(out)
		for i := range out {
			out[i] = max(min(out[i], w.AutoAt-int64(n-i)*step), 1)
		}
		out = slices.Compact(out)
	}
	return out
}

// Floor is the lowest the first threshold can be for any window watch may
// infer (WA-4): a fill below it needs no window, settings file or state to
// know that watch has nothing to say. flag is --window (0: none); getenv
// gives the switches that move the auto-compaction point. Without --window
// the window lies between the smallest auto-compact window the client
// accepts and the largest model window; the first threshold, as Resolve
// gives it, is a concave function of the window, so its least value over
// that range is at one of the ends.
func Floor(ts []Threshold, flag int64, getenv func(string) string) int64 {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	ends := []int64{MinAutoCompact, LargeWindow}
	if flag > 0 {
		ends = []int64{flag}
	}
	floor := int64(math.MaxInt64)
	for _, tokens := range ends {
		if r := Resolve(ts, Window{Tokens: tokens, AutoAt: autoPoint(tokens, getenv)}); len(r) > 0 {
			floor = min(floor, r[0])
		}
	}
	return max(floor, 0)
}
