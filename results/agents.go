package results

import "time"

// The results keys of agent mode. All are additive: a file
// without them reads as before, and a merged file reads like any other.

// AgentsHeader is the run header's description of agent mode. In an
// agent's own file Index is that agent; in a merged file Index is nil and
// Merged lists the files the steps came from.
type AgentsHeader struct {
	Count int  `json:"count"` // agents in the run (--agents)
	Index *int `json:"index"` // this agent (0 leads); nil in a merged file
	// PlanHash identifies the plan, workloads and targets every agent
	// must share; merge refuses files whose hashes differ.
	PlanHash string `json:"plan_hash"`
	// ClientsPerAgent is --clients of each agent; a merged file's steps
	// count Count × ClientsPerAgent clients.
	ClientsPerAgent int           `json:"clients_per_agent"`
	Host            string        `json:"host,omitempty"`
	TimeoutS        float64       `json:"timeout_s,omitempty"` // --agent-timeout
	Merged          []MergedAgent `json:"merged,omitempty"`
}

// MergedAgent is one agent's file as merge read it.
type MergedAgent struct {
	Index  int    `json:"index"`
	Host   string `json:"host"`
	File   string `json:"file"`
	Steps  int    `json:"steps"`
	Status string `json:"status"` // the file's end status; "" without one
	Reason string `json:"reason,omitempty"`
}

// StepHistograms holds a step's HDR histograms (microseconds) in
// HdrHistogram's V2 compressed base64 encoding (hdrhistogram-go Encode,
// HdrHistogram Java's encodeIntoCompressedByteBuffer + base64): Call
// per workload call, Ops per op type, CheckoutWait per pool checkout.
type StepHistograms struct {
	Call         string            `json:"call"`
	Ops          map[string]string `json:"ops,omitempty"`
	CheckoutWait string            `json:"checkout_wait,omitempty"`
}

// AgentStep is one agent's part in a step measured in lock step. Times
// are on the reference clock: the target's own clock (hello localTime)
// when it reports one, so that hosts whose clocks disagree still line up;
// ClockOffsetMS is that clock minus this host's, null when the target
// reports no time and this host's clock was used.
type AgentStep struct {
	Index         int       `json:"index"`
	Of            int       `json:"of"`
	Host          string    `json:"host"`
	StartAt       time.Time `json:"start_at"` // the agreed start of the warm-up
	WindowStart   time.Time `json:"window_start"`
	WindowEnd     time.Time `json:"window_end"`
	ClockOffsetMS *float64  `json:"clock_offset_ms"`
}

// MissingAgent is an agent a step ran without, and why.
type MissingAgent struct {
	Index  int    `json:"index" bson:"index"`
	Host   string `json:"host,omitempty" bson:"host,omitempty"`
	Reason string `json:"reason" bson:"reason"`
}

// AgentShare is one agent's numbers in a merged step.
type AgentShare struct {
	Index       int            `json:"index"`
	Host        string         `json:"host"`
	Ops         int64          `json:"ops"`
	Calls       int64          `json:"calls"`
	OpsPerS     float64        `json:"ops_per_s"`
	CallsPerS   float64        `json:"calls_per_s"`
	Errors      ErrorCounts    `json:"errors"`
	Connections int            `json:"connections"`
	Latency     LatencySummary `json:"latency_ms"`
	WindowStart time.Time      `json:"window_start"`
	WindowEnd   time.Time      `json:"window_end"`
	// ClientCPUPct is the agent's own CPU over the window (null when not
	// sampled), and Bound its own label: a starved agent shows here.
	ClientCPUPct *float64 `json:"client_cpu_pct"`
	Bound        string   `json:"bound,omitempty"`
}

// WindowSkew says how well the agents' windows lined up: the spread of
// their starts and of their ends, and Overlap, the time all windows
// shared divided by the time any window was open (1 is perfect).
type WindowSkew struct {
	StartMS float64 `json:"start_ms"`
	EndMS   float64 `json:"end_ms"`
	Overlap float64 `json:"overlap"`
}
