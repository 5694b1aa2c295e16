package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Test commands: configureFailPoint with the failCommand fail point, and
// getParameter's enableTestCommands. A real server registers its test
// commands only when started with enableTestCommands=1; without it
// configureFailPoint is an unknown command (CommandNotFound), and so it is
// here without test_commands=true. The behaviour follows the server's
// source (src/mongo/db/commands.cpp, evaluateFailCommandFailPoint and
// shouldActivateFailCommandFailPoint; src/mongo/util/fail_point.cpp,
// parseBSON and setGlobalFailPoint; fail_point_cmd.cpp):
//
//   - a command matches when its name (or an alias of the same command:
//     hello, isMaster and ismaster are one) is in data.failCommands, or
//     data.failAllCommands is given, and appName, namespace and
//     threadName ("conn<id>") match when given; a match with none of
//     closeConnection, blockConnection and errorCode does not activate;
//   - mode "alwaysOn", "off", {times: n} (the next n matches),
//     {skip: n} (every match after the first n) or
//     {activationProbability: p};
//   - on activation: blockConnection waits blockTimeMS first;
//     closeConnection then closes the connection without a reply;
//     otherwise errorCode fails the command with "Failing command via
//     'failCommand' failpoint", its codeName and errorLabels (given, or
//     RetryableWriteError for a retryable write from 4.4); a block without
//     an error lets the command run;
//   - configureFailPoint is admin-only and answers {count, ok} from 4.4
//     (the times the fail point was entered before), {ok} before.
//
// Each server of the simulator is a process of its own, so each has its
// own fail point: a router's applies to the commands it receives, a
// member's to those sent to that member. A shard's own server does not
// take configureFailPoint: the ops its routers send reach its data
// without passing its command path, so its fail point would fail only
// its direct clients (set it on the routers). Only
// failCommand exists: another name is FailPointSetFailed ("not found"),
// as a real server answers a name it lacks. data.writeConcernError,
// errorExtraInfo and tassert are refused (BadValue), rather than ignored:
// the simulator does not model them.

// failPoint is one server's failCommand fail point.
type failPoint struct {
	mu      sync.Mutex
	mode    string // "off", "alwaysOn", "times", "skip", "random"
	val     int64  // times left, or skips left
	prob    float64
	data    failData
	entered int64
}

// failData is failCommand's data document, parsed.
type failData struct {
	commands               []string
	all                    bool
	appName, ns, thread    *string
	closeConn, block       bool
	blockMS                int64
	blockBad               bool // blockConnection without a valid blockTimeMS
	hasCode                bool
	code                   int32
	labels                 []string
	hasLabels, activatable bool
}

// commandAliases maps a command's other names to its own, as the server
// registers one command under several names.
var commandAliases = map[string]string{"isMaster": "hello", "ismaster": "hello", "buildinfo": "buildInfo"}

func canonical(name string) string {
	if n, ok := commandAliases[name]; ok {
		return n
	}
	return name
}

// cmdConfigureFailPoint answers configureFailPoint (test commands only).
func cmdConfigureFailPoint(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if c.db != "admin" {
		return nil, errAdminOnly(c.name)
	}
	name, _ := c.body.Index(0).Value().StringValueOK()
	if name != "failCommand" {
		return nil, &cmdError{Code: 266, Name: "FailPointSetFailed", Msg: name + " not found"}
	}
	mode, val, prob, err := parseFailMode(c)
	if err != nil {
		return nil, err
	}
	var data failData
	if v, err := c.body.LookupErr("data"); err == nil {
		doc, ok := v.DocumentOK()
		if !ok {
			return nil, errTypeMismatch("the 'data' option must be a JSON object")
		}
		if data, err = parseFailData(doc); err != nil {
			return nil, err
		}
	}
	fp := &f.fail
	fp.mu.Lock()
	before := fp.entered
	fp.mode, fp.val, fp.prob, fp.data = mode, val, prob, data
	fp.mu.Unlock()
	if f.d.version.wire >= 9 { // 4.4+, with waitForFailPoint
		return bson.D{{Key: "count", Value: int32(min(before, math.MaxInt32))}}, nil
	}
	return bson.D{}, nil
}

// parseFailMode reads mode as FailPoint::parseBSON does, with its errors.
func parseFailMode(c *cmd) (mode string, val int64, prob float64, err error) {
	v, e := c.body.LookupErr("mode")
	if e != nil {
		return "", 0, 0, &cmdError{Code: 20, Name: "IllegalOperation", Msg: "When setting a failpoint, you must supply a 'mode'"}
	}
	if s, ok := v.StringValueOK(); ok {
		if s != "off" && s != "alwaysOn" {
			return "", 0, 0, errBadValue("unknown mode: " + s)
		}
		return s, 0, 0, nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return "", 0, 0, errTypeMismatch("'mode' must be a string or JSON object")
	}
	for _, key := range []string{"times", "skip"} {
		e, err := doc.LookupErr(key)
		if err != nil {
			continue
		}
		n, ok := e.AsInt64OK()
		switch {
		case !ok:
			return "", 0, 0, errTypeMismatch(fmt.Sprintf("Expected field \"%s\" to have numeric type, but found %s", key, e.Type))
		case n < 0:
			return "", 0, 0, errBadValue(fmt.Sprintf("'%s' option to 'mode' must be positive", key))
		case n > math.MaxInt32:
			return "", 0, 0, errBadValue(fmt.Sprintf("'%s' option to 'mode' is too large", key))
		}
		return key, n, 0, nil
	}
	if e, err := doc.LookupErr("activationProbability"); err == nil {
		p, ok := e.AsFloat64OK()
		if !ok {
			return "", 0, 0, errTypeMismatch("the 'activationProbability' option to 'mode' must be a double between 0 and 1")
		}
		if p < 0 || p > 1 {
			return "", 0, 0, errBadValue(fmt.Sprintf("activationProbability must be between 0.0 and 1.0; found %g", p))
		}
		return "random", 0, p, nil
	}
	return "", 0, 0, errBadValue("'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or '{activationProbability:p}'")
}

// parseFailData reads failCommand's data document.
func parseFailData(doc bsoncore.Document) (failData, error) {
	var d failData
	for _, unmodeled := range []string{"writeConcernError", "errorExtraInfo", "tassert"} {
		if _, err := doc.LookupErr(unmodeled); err == nil {
			return d, errBadValue("the simulator does not model failCommand's " + unmodeled)
		}
	}
	if v, err := doc.LookupErr("failCommands"); err == nil {
		if arr, ok := v.ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, e := range vals {
				if s, ok := e.StringValueOK(); ok {
					d.commands = append(d.commands, canonical(s))
				}
			}
		}
	}
	_, err := doc.LookupErr("failAllCommands")
	d.all = err == nil
	str := func(key string) *string {
		if v, err := doc.LookupErr(key); err == nil {
			s, _ := v.StringValueOK()
			return &s
		}
		return nil
	}
	d.appName, d.ns, d.thread = str("appName"), str("namespace"), str("threadName")
	flag := func(key string) bool {
		v, err := doc.LookupErr(key)
		if err != nil {
			return false
		}
		b, ok := v.BooleanOK()
		return ok && b
	}
	d.closeConn, d.block = flag("closeConnection"), flag("blockConnection")
	if v, err := doc.LookupErr("blockTimeMS"); err == nil {
		n, ok := v.AsInt64OK()
		d.blockMS, d.blockBad = n, !ok
	} else {
		d.blockBad = true
	}
	if v, err := doc.LookupErr("errorCode"); err == nil {
		if n, ok := v.AsInt64OK(); ok {
			d.hasCode, d.code = true, int32(n)
		}
	}
	if v, err := doc.LookupErr("errorLabels"); err == nil {
		if arr, ok := v.ArrayOK(); ok {
			d.hasLabels = true
			vals, _ := arr.Values()
			for _, e := range vals {
				if s, ok := e.StringValueOK(); ok {
					d.labels = append(d.labels, s)
				}
			}
		}
	}
	d.activatable = d.closeConn || d.block || d.hasCode
	return d, nil
}

// matches is shouldActivateFailCommandFailPoint for a client connection.
func (d *failData) matches(cs *connState, c *cmd) bool {
	if !d.activatable {
		return false
	}
	if d.thread != nil && *d.thread != fmt.Sprintf("conn%d", cs.id) {
		return false
	}
	if d.appName != nil && *d.appName != cs.appName {
		return false
	}
	if d.ns != nil {
		coll, _ := c.body.Index(0).Value().StringValueOK()
		if *d.ns != c.db+"."+coll {
			return false
		}
	}
	return d.all || slices.Contains(d.commands, canonical(c.name))
}

// activate reports whether the fail point fires for this command, and
// with which data, counting the entry and spending a time or a skip.
func (fp *failPoint) activate(cs *connState, c *cmd) (failData, bool) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if fp.mode == "" || fp.mode == "off" || !fp.data.matches(cs, c) {
		return failData{}, false
	}
	switch fp.mode {
	case "times":
		if fp.val <= 0 {
			fp.mode = "off"
			return failData{}, false
		}
		fp.val--
		if fp.val == 0 {
			fp.mode = "off"
		}
	case "skip":
		if fp.val > 0 {
			fp.val--
			return failData{}, false
		}
	case "random":
		if rand.Float64() >= fp.prob {
			return failData{}, false
		}
	}
	fp.entered++
	return fp.data, true
}

// failCommand applies the fail point to a command about to run: nil lets
// it run (after a block, if any); an error is its reply; cs.closeNow
// closes the connection instead.
func (f *frontend) failCommand(ctx context.Context, cs *connState, c *cmd) error {
	if !f.d.spec.TestCommands {
		return nil
	}
	d, ok := f.fail.activate(cs, c)
	if !ok {
		return nil
	}
	if d.block {
		if d.blockBad {
			return &cmdError{Code: 72, Name: "InvalidOptions", Msg: "must specify 'blockTimeMS' when 'blockConnection' is true"}
		}
		if d.blockMS < 0 {
			return &cmdError{Code: 72, Name: "InvalidOptions", Msg: "'blockTimeMS' must be non-negative"}
		}
		if err := f.d.sleeper.until(ctx, time.Now().Add(time.Duration(d.blockMS)*time.Millisecond)); err != nil {
			return err
		}
	}
	const msg = "Failing command via 'failCommand' failpoint"
	if d.closeConn {
		cs.closeNow = true
		return &cmdError{Code: 50985, Name: "Location50985", Msg: msg}
	}
	if !d.hasCode {
		return nil
	}
	err := &cmdError{Code: d.code, Name: codeName(d.code), Msg: msg}
	if d.hasLabels {
		err.Labels = d.labels
		return err
	}
	return retryLabelled(f.d.version, c, err)
}

// codeNames are the names of the error codes a fail point is usually set
// with (src/mongo/base/error_codes.yml); the server names any other code
// Location<code>.
var codeNames = map[int32]string{
	1: "InternalError", 2: "BadValue", 6: "HostUnreachable", 7: "HostNotFound", 11: "UserNotFound",
	13: "Unauthorized", 18: "AuthenticationFailed", 20: "IllegalOperation", 24: "LockTimeout",
	43: "CursorNotFound", 50: "MaxTimeMSExpired", 59: "CommandNotFound", 64: "WriteConcernFailed",
	89: "NetworkTimeout", 91: "ShutdownInProgress", 112: "WriteConflict", 134: "ReadConcernMajorityNotAvailableYet",
	189: "PrimarySteppedDown", 202: "NetworkInterfaceExceededTimeLimit", 251: "NoSuchTransaction",
	262: "ExceededTimeLimit", 9001: "SocketException", 10107: "NotWritablePrimary", 11600: "InterruptedAtShutdown",
	11601: "Interrupted", 11602: "InterruptedDueToReplStateChange", 13435: "NotPrimaryNoSecondaryOk",
	13436: "NotPrimaryOrSecondary", 462: "IngressRequestRateLimitExceeded",
}

func codeName(code int32) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", code)
}

// retryLabelled adds RetryableWriteError to a retryable write's error
// when the version labels it (4.4+): the command carries a txnNumber
// outside a transaction, and the error is one the server deems
// retryable. Drivers of wire version 9+ retry on the label alone.
func retryLabelled(v serverVersion, c *cmd, err error) error {
	var ce *cmdError
	if err == nil || !v.retryLabels || !errors.As(err, &ce) || !slices.Contains(retryableCodes, ce.Code) {
		return err
	}
	if _, e := c.body.LookupErr("txnNumber"); e != nil {
		return err
	}
	if _, e := c.body.LookupErr("autocommit"); e == nil {
		return err
	}
	out := *ce
	out.Labels = append(slices.Clone(ce.Labels), "RetryableWriteError")
	return &out
}
