package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// Names from results files reach terminals: text and Markdown output and
// every error must escape their non-printing characters.
func TestHostileNamesAreEscaped(t *testing.T) {
	const evil = "rs\x1b[2J\u202e"
	base := fixture("base\x1b]0;x\x07.jsonl", "run\x1b[31m", evil)
	cand := fixture("cand.jsonl", "audit-on", evil)
	p := profile{ops: 1000, readMS: 1, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	p.add(base, evil, "read\x1b[0m", []int{8, 16}, 3)
	p.add(cand, evil, "read\x1b[0m", []int{8}, 3)
	p.add(cand, evil, "read\x1b[0m", []int{32}, 3) // unmatched: its reason names the side's levels

	c, err := Match([]*results.Results{base}, []*results.Results{cand}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]func(*bytes.Buffer, *Comparison) error{
		"text":     func(b *bytes.Buffer, c *Comparison) error { return WriteText(b, c) },
		"markdown": func(b *bytes.Buffer, c *Comparison) error { return WriteMarkdown(b, c) },
	} {
		out := string(rendered(t, c, w))
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s output holds a raw control character:\n%q", name, out)
		}
		if !strings.Contains(out, `rs\x1b[2J\u202e`) {
			t.Errorf("%s output does not show the escaped name", name)
		}
	}
	// Errors: a target that is not there, and nothing to compare.
	_, err = Match([]*results.Results{base}, []*results.Results{cand}, Options{Baseline: "x\x1by", Candidate: evil})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\u202e") {
		t.Errorf("error %q", err)
	}
	other := fixture("other.jsonl", "r", "b")
	p.add(other, "b", "scan\x1b[0m", []int{8}, 3)
	_, err = Match([]*results.Results{base}, []*results.Results{other}, Options{})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\u202e") {
		t.Errorf("error %q", err)
	}
}
