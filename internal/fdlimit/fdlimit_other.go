//go:build !unix

package fdlimit

func current() (Limit, bool) { return Limit{}, false }

func raiseToHard() error { return nil }
