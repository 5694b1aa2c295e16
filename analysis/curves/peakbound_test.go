package curves

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/bound"
)

// labelled sets each level's trials' bound labels, from the lowest level up.
func labelled(s Side, byLevel ...[]string) Side {
	for i, bs := range byLevel {
		for _, b := range bs {
			reason := ""
			switch b {
			case bound.BoundRouterPool:
				reason = "router m1:27017's pools to db2:27018 full: 9.8 in use"
			case "router_pool_connecting":
				b, reason = bound.BoundRouterPool, "router m1:27017's pools to db2:27018 grew at ShardingTaskExecutorPoolMaxConnecting: 1.9 being opened"
			case bound.BoundServer:
				reason = "shard rs1 (db2:27018): write tickets exhausted, 37.0 queued"
			}
			s.Levels[i].bounds = append(s.Levels[i].bounds, stepBound{b, reason})
		}
	}
	return s
}

// TestVerdictSaysWhy: the verdict names what bound the side with the
// lower peak, from the labels of the steps at its peak's level and the
// levels beside it, with how many of them carry it; it says nothing when
// no label holds at least half of them.
func TestVerdictSaysWhy(t *testing.T) {
	slow := func() Side {
		return side("sharded", sharded3, 2, lv{1, 200, 15, 0.01}, lv{2, 400, 16, 0.01}, lv{4, 480, 30, 0.01}, lv{8, 500, 60, 0.01})
	}
	rp, none, srv := bound.BoundRouterPool, bound.BoundNone, bound.BoundServer
	tests := []struct {
		name      string
		base, cnd Side
		want      []string
		wantNone  bool
	}{
		// The cluster loses; its peak (8) and the level below (4) were
		// router-pool-bound in 5 of their 6 trials.
		{"router pool", oneNode(0.01), labelled(slow(), []string{none}, []string{none, none, none}, []string{rp, rp, none}, []string{rp, rp, rp}),
			[]string{"near sharded's peak at 8 connections per client its routers' pools to the shards were full (router_pool, 5 of 6 steps)"}, false},
		// MaxConnecting, not MaxSize, is worded as such.
		{"max connecting", oneNode(0.01), labelled(slow(), nil, nil, nil, []string{"router_pool_connecting"}),
			[]string{"at 8 connections per client its routers' pools to the shards opened connections no faster than MaxConnecting allows (router_pool, 1 of 1 step)"}, false},
		// A shard's tickets.
		{"shard tickets", oneNode(0.01), labelled(slow(), nil, nil, []string{srv}, []string{srv}),
			[]string{"near sharded's peak at 8 connections per client a shard's tickets ran out (server, 2 of 2 steps)"}, false},
		// No label holds more than half: nothing said.
		{"split", oneNode(0.01), labelled(slow(), nil, nil, []string{srv, none}, []string{rp, none}), nil, true},
		{"half", oneNode(0.01), labelled(slow(), nil, nil, []string{none}, []string{rp}), nil, true},
		// The baseline loses: it is the one named.
		{"baseline loses", labelled(slow(), nil, nil, []string{rp}, []string{rp}), oneNode(0.01),
			[]string{"near sharded's peak at 8 connections per client its routers' pools"}, false},
		// The winner's labels are not the loser's reason.
		{"winner labelled", labelled(oneNode(0.01), nil, nil, []string{srv}, []string{srv}, []string{srv}), slow(), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := compare(tc.base, tc.cnd, 0.05)
			for _, w := range tc.want {
				if !strings.Contains(c.Verdict, w) {
					t.Errorf("verdict lacks %q:\n%s", w, c.Verdict)
				}
			}
			if tc.wantNone && strings.Contains(c.Verdict, "near ") {
				t.Errorf("verdict names a bound:\n%s", c.Verdict)
			}
		})
	}
}
