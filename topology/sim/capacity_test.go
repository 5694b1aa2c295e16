package sim

import (
	"context"
	"testing"
	"time"
)

// TestSlotPoolSchedule books ops far longer than any scheduling noise, so
// the model's answers are exact up to the microseconds between calls.
func TestSlotPoolSchedule(t *testing.T) {
	p := newSlotPool(4)
	const service = time.Hour
	var waits []time.Duration
	for range 10 {
		waits = append(waits, p.book(kindRead, service))
	}
	p.book(kindWrite, service)
	// Ops 0-3 start now, 4-7 after one service time, 8-9 after two; the
	// write takes the next slot to free, at two service times, not
	// overtaking any read (starts are FIFO).
	wantSlots := []int{1, 1, 1, 1, 2, 2, 2, 2, 3, 3}
	for i, w := range waits {
		want := time.Duration(wantSlots[i]) * service
		if w < want-time.Second || w > want {
			t.Errorf("op %d finishes in %v, want %v", i, w, want)
		}
	}
	s := p.snapshot()
	if s.ActiveReads != 4 || s.ActiveWrites != 0 || s.Free != 0 {
		t.Errorf("active reads %d writes %d free %d, want 4, 0, 0", s.ActiveReads, s.ActiveWrites, s.Free)
	}
	if s.QueuedReads != 6 || s.QueuedWrites != 1 || s.MaxQueued != 7 {
		t.Errorf("queued reads %d writes %d max %d, want 6, 1, 7", s.QueuedReads, s.QueuedWrites, s.MaxQueued)
	}
	if s.Acquired != 11 {
		t.Errorf("acquired %d, want 11", s.Acquired)
	}
	// Wait is the sum of queueing delays: 4 reads wait 1h, 2 reads and the
	// write 2h each.
	if want := 10 * time.Hour; s.WaitTotal < want-time.Minute || s.WaitTotal > want {
		t.Errorf("total wait %v, want %v", s.WaitTotal, want)
	}
	if s.HoldTotal != 11*service {
		t.Errorf("total hold %v, want %v", s.HoldTotal, 11*service)
	}
}

func TestSlotPoolDrains(t *testing.T) {
	// Short ops: after they finish in model time the pool is idle again.
	p := newSlotPool(2)
	for range 4 {
		p.book(kindWrite, time.Millisecond)
	}
	time.Sleep(5 * time.Millisecond)
	s := p.snapshot()
	if s.Free != 2 || s.ActiveWrites != 0 || s.QueuedWrites != 0 || s.MaxQueued != 2 {
		t.Errorf("after draining: %+v", s)
	}
}

func TestSlotPoolRunCancelled(t *testing.T) {
	// A queued op gives up when its context ends instead of sleeping on.
	p := newSlotPool(1)
	p.book(kindRead, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.run(ctx, newSleeper(), kindRead, time.Millisecond) }()
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("run = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

// TestSlotPoolBookedAheadNotQueued: an op booked ahead of its arrival (a
// router's connection handed on as of its op's finish, a write on its way
// to a secondary) starts later than an op booked after it that arrives
// now into a free slot; the later op is active at once, and neither is
// queued: a free slot never has a queue.
func TestSlotPoolBookedAheadNotQueued(t *testing.T) {
	p := newSlotPool(8)
	const service = time.Hour
	p.bookAt(time.Now().Add(time.Hour), kindRead, service)
	for range 3 {
		p.book(kindRead, service)
	}
	s := p.snapshot()
	if s.QueuedReads != 0 || s.ActiveReads != 3 || s.Free != 5 || s.MaxQueued != 0 {
		t.Errorf("queued %d active %d free %d max queued %d, want 0, 3, 5, 0", s.QueuedReads, s.ActiveReads, s.Free, s.MaxQueued)
	}
	if s.Started != 3 {
		t.Errorf("started %d, want 3 (the op still to arrive has not)", s.Started)
	}
}

// TestSlotPoolBookedAheadTakesItsOwnSlot: two connections, each with an
// op running and its next op booked ahead to arrive as the first ends
// (a router's connection handed on), use two slots of four, one after
// the other: the ops booked ahead take the slots their predecessors free
// then, not the slots free now, so an op that arrives now still finds a
// free slot and starts at once.
func TestSlotPoolBookedAheadTakesItsOwnSlot(t *testing.T) {
	p := newSlotPool(4)
	const service = time.Hour
	for range 2 {
		finish := p.bookAt(time.Now(), kindRead, service)
		p.bookAt(finish, kindRead, service)
	}
	if wait := p.book(kindRead, service); wait > service+time.Minute {
		t.Errorf("an op arriving with 2 of 4 slots running finishes in %v, want %v: it waited for a slot", wait, service)
	}
	if s := p.snapshot(); s.Queued() != 0 || s.WaitTotal > time.Minute {
		t.Errorf("queued %d, total wait %v, want none", s.Queued(), s.WaitTotal)
	}
}

// TestSlotPoolBookedAheadBestFit: of the slots free by an op's arrival,
// the op booked ahead takes the one that frees last (here at 3h, of
// slots freeing at 1h to 5h and three idle), so the idle slots stay free
// for the ops that arrive now.
func TestSlotPoolBookedAheadBestFit(t *testing.T) {
	p := newSlotPool(8)
	for h := 5; h >= 1; h-- {
		p.book(kindRead, time.Duration(h)*time.Hour)
	}
	start := time.Now().Add(3*time.Hour + 30*time.Minute)
	if finish := p.bookAt(start, kindRead, time.Hour); finish.Sub(start) > time.Hour+time.Minute {
		t.Errorf("the op booked ahead finishes %v after its arrival, want 1h", finish.Sub(start))
	}
	for i := range 3 {
		if wait := p.book(kindRead, time.Hour); wait > time.Hour+time.Minute {
			t.Errorf("op %d arriving now with 3 slots idle finishes in %v, want 1h", i+1, wait)
		}
	}
}
