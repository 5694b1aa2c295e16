// Package listenwarn words the one warning poolsweep gives when a
// listener it opens on an address the user gave (--metrics-listen, serve
// --listen) can be reached from beyond this machine: who can reach it and
// what they get. The run library and the commands both give it.
package listenwarn

import (
	"fmt"
	"io"
	"net"
	"strings"
)

// A listener poolsweep opens on an address the user gave (--metrics-listen,
// serve --listen) is reachable beyond this machine unless its host is a
// loopback address. That may be what the user wants (a Prometheus on
// another host), but it must never happen without a word: poolsweep says
// once, on stderr (a message event under --progress json), who can reach
// it and what they get.

// listenScope says who can reach a listener on host: "" for a loopback
// host (localhost, 127.0.0.0/8, ::1), else the clause naming who can.
// ports are the ports it listens on.
func listenScope(host string, ports []string) string {
	if host == "localhost" {
		return ""
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return ""
	}
	portWord := "port " + joinPorts(ports)
	if len(ports) > 1 {
		portWord = "ports " + joinPorts(ports)
	}
	if host == "" || (ip != nil && ip.IsUnspecified()) {
		return fmt.Sprintf("anyone who can reach this machine's %s on any interface", portWord)
	}
	return fmt.Sprintf("anyone who can reach %s on %s", host, portWord)
}

// joinPorts is "1", "1 and 2", "1, 2 and 3".
func joinPorts(ports []string) string {
	switch n := len(ports); n {
	case 0:
		return "?"
	case 1:
		return ports[0]
	default:
		return strings.Join(ports[:n-1], ", ") + " and " + ports[n-1]
	}
}

// Line is the warning for flag's value listen, now
// listened on at addrs (host:port, the ports the listener really has:
// port 0 resolved), or "" when its host is loopback. can is what whoever
// reaches it can do; about is what that costs the user.
func Line(flag, listen string, addrs []string, can, about string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "" // checked when the flag was parsed
	}
	var ports []string
	for _, a := range addrs {
		if _, p, err := net.SplitHostPort(a); err == nil {
			ports = append(ports, p)
		}
	}
	who := listenScope(host, ports)
	if who == "" {
		return ""
	}
	return fmt.Sprintf("poolsweep: warning: %s %s is not a loopback address: %s %s; %s", flag, listen, who, can, about)
}

// Write writes Line's line to w, when there is
// one.
func Write(w io.Writer, flag, listen string, addrs []string, can, about string) {
	if line := Line(flag, listen, addrs, can, about); line != "" {
		fmt.Fprintln(w, line)
	}
}

// What whoever reaches each listener can do, and what it costs: the
// sweep's --metrics-listen, and serve's --listen for a simulator and for
// FerretDB.
const (
	MetricsCan   = "can read its /metrics"
	MetricsAbout = "the metrics carry no credentials but do reveal the target's shape (target names, concurrency, pool sizes, throughput, latency, errors)"
	// The simulator takes any user and password; the words avoid the
	// mechanism's name, which a URI with a raw "?" in its userinfo makes
	// the redactor hide as a possible secret (tests share one redactor).
	SimCan      = "can connect to the simulator and send it commands (it takes any user and password)"
	SimAbout    = "it holds no data of yours, but their load would be measured as the deployment's"
	FerretCan   = "can connect to FerretDB and read or change the documents it holds"
	FerretAbout = "listen on 127.0.0.1 unless they should"
)
