// Package serve is the serve command: the embedded FerretDB server or a
// calibrated simulator in the foreground.
package serve

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/listenwarn"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/embedded"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// Options are serve's flags, as parsed.
type Options struct {
	data          string
	listen        string
	postgresqlURL string
	sim           string
	logFile       string
	simAddrs      simListen // where the simulator's servers listen (validate)
}

// NewCmdServe builds the serve command; runF runs it once its flags are
// parsed (nil: start the server; tests pass their own, as for sweep).
func NewCmdServe(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded FerretDB server (or a calibrated simulator) in the foreground",
		Long: `serve runs a MongoDB-wire server and prints its URI as the first line on stdout.
It stops cleanly on SIGINT/SIGTERM or when its standard input closes (so a parent
process that dies takes it along).

Without --sim it is embedded FerretDB 1.24 with its SQLite backend, data in a temporary
directory (removed at exit) unless --data is given. FerretDB translates MongoDB commands
to SQL: its numbers are FerretDB's, not MongoDB's.

With --sim SPEC it is poolsweep's calibrated simulator: a measuring instrument whose
capacity is known by construction (slots / service time), standalone, a replica set or
sharded. It is not a database. accept_cost=D in SPEC charges each new connection's setup
to one acceptor per server, in turn; setup_latency=D is the setup each connection pays
at once, in parallel (its handshake's and authentication's round trips). --listen HOST:0 (the default, 127.0.0.1:0) gives each of
its servers a free port of its own on HOST. --listen HOST:PORT is a fixed base: the
standalone on PORT; a replica set's members (rs=N) on PORT to PORT+N-1; routers=R on PORT
to PORT+R-1 and then the shards' own servers on the next ports (shards=S: up to
PORT+R+S-1). So a deployment killed and started again with the same --listen has the same
hosts, and a driver that knew it reconnects (a replica set's hello names its members by
these addresses). Every port is tried before anything starts: one taken, or past 65535,
is bad input naming --listen.`,
		Example: `  poolsweep serve
  poolsweep serve --listen 127.0.0.1:27018 --data ./ferret-data
  poolsweep serve --postgresql-url 'postgres://user@127.0.0.1:5432/ferretdb?pool_max_conns=300'
  poolsweep serve --sim slots=8,service=2ms
  poolsweep serve --sim shards=3,slots=8,service=2ms,routers=2
  poolsweep serve --sim slots=8,service=2ms,accept_cost=1ms,setup_latency=50ms
  poolsweep serve --sim slots=8,service=2ms --listen 127.0.0.1:27099
  poolsweep serve --sim rs=3,slots=4 --listen 127.0.0.1:27017   # members on 27017, 27018, 27019`,
		Args: cmdutil.ArgsUsage(cobra.NoArgs),
		RunE: cmdutil.RunSeam(o, func() error { _, err := o.Validate(); return err }, runF, func(ctx context.Context) error { return o.run(ctx, e) }),
	}
	f := cmd.Flags()
	cmdutil.TextVar(f, &o.data, "data", "", "a directory, made through outfile", nil, "directory for FerretDB's SQLite files, made if absent (its parent must exist; default: a temporary directory removed at exit)")
	cmdutil.TextVar(f, &o.listen, "listen", "127.0.0.1:0", "host:port on a loopback or local address", CheckListen, "host:port to listen on (port 0: a free one per server; with --sim rs=N or routers, a fixed port is the first of a block, see above)")
	cmdutil.TextVar(f, &o.postgresqlURL, "postgresql-url", "", "a postgres:// URL", nil, "use FerretDB's PostgreSQL backend at this URL instead of SQLite")
	cmdutil.TextVar(f, &o.sim, "sim", "", "a simulator spec", func(v string) error { _, err := sim.ParseSpec(v); return err }, "run the calibrated simulator with this spec instead of FerretDB (e.g. slots=8,service=2ms)")
	cmdutil.TextVar(f, &o.logFile, "log", "", "a file, appended through outfile", nil, "append the server's own warnings to this file, a regular file in an existing directory (default: stderr)")
	return cmd
}

// CheckListen checks --listen: host:port, the port a number from 0 to
// 65535, the host an IP address or localhost.
func CheckListen(v string) error {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("%s is not host:port", textfmt.Token(v))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %s is not a number between 0 and 65535", textfmt.Token(port))
	}
	if host != "" && net.ParseIP(host) == nil && host != "localhost" {
		return fmt.Errorf("host %s is not an IP address or localhost", textfmt.Token(host))
	}
	return nil
}

// Validate checks the flags together, before anything starts, and
// returns the simulator's spec when --sim is given.
func (o *Options) Validate() (sim.Spec, error) {
	var spec sim.Spec
	if o.sim != "" {
		var err error
		if spec, err = sim.ParseSpec(o.sim); err != nil {
			return spec, errext.Usagef("--sim: %w", err)
		}
		if o.data != "" || o.postgresqlURL != "" {
			return spec, errext.Usagef("--sim: the simulator keeps documents in memory; --data and --postgresql-url do not apply")
		}
	}
	if o.sim != "" {
		var err error
		if o.simAddrs, err = simListenAddrs(o.listen, spec); err != nil {
			return spec, err
		}
	}
	if o.data != "" && o.postgresqlURL != "" {
		return spec, errext.Usagef("--data: not used with --postgresql-url")
	}
	if o.postgresqlURL != "" {
		// It may carry a password: no message may show it from here on.
		topology.RegisterURI(o.postgresqlURL)
	}
	if o.postgresqlURL != "" && !strings.HasPrefix(o.postgresqlURL, "postgres://") && !strings.HasPrefix(o.postgresqlURL, "postgresql://") {
		return spec, errext.Usagef("--postgresql-url: %s is not a postgres:// URL", textfmt.Token(topology.Redact(o.postgresqlURL)))
	}
	if o.data != "" {
		if err := outfile.CheckDir(o.data); err != nil {
			return spec, errext.Usagef("--data: %w", err)
		}
		// FerretDB reads and writes every file in its data directory: a
		// log appended to one of them would corrupt it.
		if o.logFile != "" && cmdutil.SameFile(filepath.Dir(filepath.Clean(o.logFile)), o.data) {
			return spec, errext.Usagef("--log: %s is in the --data directory, whose files FerretDB reads and writes: %w; write the log elsewhere", textfmt.Short(o.logFile), outfile.ErrIsInput)
		}
	}
	return spec, nil
}

func (o *Options) run(ctx context.Context, e *cmdutil.Env) error {
	spec, err := o.Validate()
	if err != nil {
		return err
	}
	// Every address is tried before anything is made (--log's file, the
	// data directory) or started.
	if err := o.probeListen(); err != nil {
		return err
	}
	logw := e.Stderr
	if o.logFile != "" {
		f, err := outfile.Append(o.logFile)
		if err != nil {
			return errext.Usagef("--log: %w", err)
		}
		defer f.Close()
		logw = f
	}

	// Stop on signal (ctx) or when stdin closes.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if watchStdin(e.Stdin) {
		go func() {
			io.Copy(io.Discard, e.Stdin)
			cancel()
		}()
	}

	// The start timeout bounds starting only: the server then runs until
	// ctx ends (signal or stdin), however long the sweep using it takes.
	startCtx, cancelStart := context.WithTimeout(ctx, 60*time.Second)
	defer cancelStart()
	if o.sim != "" {
		// This process runs the simulator and nothing else: its CPU time is
		// the server's, which serverStatus may then report as a real
		// mongod does.
		opts := append([]sim.Option{sim.AloneInProcess()}, o.simAddrs.options()...)
		d, err := sim.Start(startCtx, spec, opts...)
		cancelStart()
		if err != nil {
			if uerr := listenUsage(err); uerr != nil {
				return uerr
			}
			return fmt.Errorf("start simulator: %w", err)
		}
		defer d.Close()
		fmt.Fprintln(e.Stdout, d.URI())
		fmt.Fprintf(e.Stderr, "poolsweep simulator (%s) — a measuring instrument, not a database; stop with Ctrl-C\n", spec.String())
		listenwarn.Write(e.Stderr, "--listen", o.listen, append(d.Hosts(), d.ShardHosts()...), listenwarn.SimCan, listenwarn.SimAbout)
		<-ctx.Done()
		return nil
	}

	dir := o.data
	if dir == "" && o.postgresqlURL == "" {
		tmp, err := os.MkdirTemp("", "poolsweep-ferretdb-")
		if err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if dir != "" {
		// The directory the user named, made one level deep if absent;
		// FerretDB makes its files in it.
		if err := outfile.MakeDir(dir); err != nil {
			return errext.Usagef("--data: %w", err)
		}
		dir = filepath.Clean(dir) // checked: FerretDB gets the place it resolves to, not a ".." to follow again
	}
	srv, err := embedded.Start(startCtx, embedded.Config{DataDir: dir, Listen: o.listen, PostgreSQLURL: o.postgresqlURL, Log: logw})
	cancelStart()
	if errors.Is(err, embedded.ErrBackend) && o.postgresqlURL != "" {
		return fmt.Errorf("--postgresql-url: PostgreSQL at %s does not answer (%w); check the URL and that the server runs", topology.Redact(o.postgresqlURL), err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, srv.URI)
	if u, err := url.Parse(srv.URI); err == nil {
		listenwarn.Write(e.Stderr, "--listen", o.listen, []string{u.Host}, listenwarn.FerretCan, listenwarn.FerretAbout)
	}
	select {
	case <-ctx.Done():
	case err := <-srv.Done():
		return fmt.Errorf("FerretDB stopped: %v", err)
	}
	return srv.Stop()
}

// watchStdin says whether EOF on stdin should stop the server: yes for a
// pipe (the parent's end closing means the parent is gone) and a terminal
// (Ctrl-D), no for /dev/null, which is at EOF from the start (a server run
// in the background or by a service manager).
func watchStdin(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	switch m := fi.Mode(); {
	case m&os.ModeCharDevice != 0:
		return term.IsTerminal(int(f.Fd()))
	case m&(os.ModeNamedPipe|os.ModeSocket) != 0:
		return true
	default:
		return false // a regular file is read to its end at once
	}
}
