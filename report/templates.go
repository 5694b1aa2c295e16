package report

import (
	"html/template"
	"strings"
	texttemplate "text/template"
)

var htmlTmpl = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>poolsweep report</title>
<style>
body{font-family:'Liberation Sans',Arial,Helvetica,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1,h2,h3{line-height:1.2}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right;vertical-align:top}
th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}
table.facts td,table.targets td,table.targets th{text-align:left}
table.targets{width:100%}
table.targets td.uri{overflow-wrap:anywhere;min-width:14em}
table.ab{font-size:.82em}
.scroll{overflow-x:auto}
figure{margin:1.5em 0}
figcaption{color:#555;font-size:.92em;margin-top:.3em}
figure svg{display:block;max-width:960px;margin:0 auto}
code{font-family:'Liberation Mono',Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.summary{font-family:'Liberation Mono',Menlo,Consolas,monospace;font-size:.9em;color:#333}
.warn{color:#8a4b00}
.note{color:#555}
</style>
</head>
<body>
<h1>poolsweep report</h1>
{{range .Runs}}
<h2>{{.Title}}</h2>
<table class="facts">
{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
<h3>Targets</h3>
<table class="targets">
<tr><th>target</th><th>topology</th><th>server</th><th>hosts</th><th>URI (redacted)</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td>{{.Topology}}</td><td>{{.Server}}</td><td>{{.Hosts}}</td><td class="uri">{{.URI}}</td></tr>
{{end}}</table>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}
{{end}}
{{with .AB}}<section id="ab">
{{.HTML}}
{{range .Figures}}<figure id="{{.Name}}">
{{.SVG}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>
{{end}}</figure>
{{end}}</section>
{{end}}
{{if .Verdicts}}<h2>Verdicts</h2>
{{with .Analysis}}<p class="note">{{.}}</p>
{{end}}{{range .Commands}}<p><code>{{.}}</code></p>
{{end}}{{range .Verdicts}}<h3>{{.Name}}</h3>
<p>{{.Verdict}}</p>
<p class="summary">{{.Summary}}</p>
{{range .Warnings}}<p class="warn">⚠ {{.}}</p>
{{end}}{{end}}{{end}}
{{if .Curves}}<section id="deployments"><h2>Deployments compared</h2>
<p class="note">Curve against curve: each side's peak and knee (the verdicts above), the ratio of the peaks with its 95% interval, latency at the same throughput, and the lowest throughput from which one side is significantly better.</p>
{{range .Curves}}<h3>{{.Title}}</h3>
<p class="verdict"><strong>{{.Verdict}}</strong></p>
<table class="facts">
{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
{{if .Matched.Rows}}<h4>Latency at matched throughput</h4>
<div class="scroll"><table class="steps">
<tr>{{range .Matched.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Matched.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .Table.Rows}}<h4>Throughput by connections (per client × clients)</h4>
<div class="scroll"><table class="steps">
<tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{end}}</section>
{{end}}
{{with .Fleet}}<section id="fleet">
<h2>Fleet</h2>
<p class="note">{{.Intro}}</p>
{{range .Sections}}<h3>{{.Heading}}</h3>
<ul>
{{range .Facts}}<li>{{.}}</li>
{{end}}</ul>
{{if .Rows}}<div class="scroll"><table class="fleet">
<tr>{{range $.Fleet.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
<p><strong>Recommendation:</strong> {{.Recommendation}}</p>
<ul>
{{range .Reasons}}<li>{{.}}</li>
{{end}}</ul>
{{if .Setup}}<h4>Connection setup</h4>
<ul>
{{range .Setup}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{range .Warnings}}<p class="warn">⚠ {{.}}</p>
{{end}}{{end}}</section>
{{end}}
{{if .Figures}}<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">
{{.SVG}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>
{{end}}</figure>
{{end}}{{range .Skipped}}<p class="note">{{.}}</p>
{{end}}{{end}}
<h2>Steps</h2>
{{range .Runs}}{{if gt (len $.Runs) 1}}<h3>{{.Title}}</h3>{{end}}
{{if .Table.Rows}}<div class="scroll"><table class="steps">
<tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .OpenTable.Rows}}<p class="note">Open loop (sweep --rate): latency from each call's intended start; uncorrected from its send; pool wait as a share of the latency (medians).</p>
<div class="scroll"><table class="steps open">
<tr>{{range .OpenTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .OpenTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .ProfileTable.Rows}}<p class="note">Profile steps (sweep --profile): each step's summary from its timeline (see the timeline figure). Time to fill: until the pool first held what the load needed; first-second and worst p99: by intended start; time to steady: until throughput and p99 stayed within the steady state's interval; created, closed, clears: the pool's churn over the step. – where the step gave no evidence.</p>
<div class="scroll"><table class="steps profile">
<tr>{{range .ProfileTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .ProfileTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .EventTable.Rows}}<p class="note">Events under load (sweep --event): when each was fired and its trigger ended on the timeline's clock, and what it did. Recover: from the event until throughput and p99 stayed within the steady state before it; refill: until the connections open, having fallen, reached again what it held in use; errors, retried (failed once, then succeeded on the driver's retry) and the churn: from the event until it recovered or its trigger ended, whichever was later; p99 during: the worst interval p99 until the trigger ended; degraded after: the load still outside the steady state as its phase ended, the trigger gone; peak connections: each host's most, the server's own count where it reported one, of its limit; reconnect storm: the connections the clients opened to the busiest host after the event, from how many clients, from the first opened until the last was ready, and the rate the server set them up at. – where the step gave no evidence.</p>
<div class="scroll"><table class="steps events">
<tr>{{range .EventTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .EventTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .HostTable.Rows}}<h4>Pools per host</h4>
<p class="note">maxPoolSize is per client per host: the driver keeps one pool to each member or router it talks to. Role and open connections at the window's start; most in use, checkouts and pool wait in the window.</p>
<div class="scroll"><table class="steps hosts">
<tr>{{range .HostTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .HostTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .RouterTable.Rows}}<h4>Routers' pools to the shards</h4>
<p class="note">Each mongos router's connections to each shard host in the step's window (connPoolStats, means; created: opened in the window). In use per pool is the busiest task-executor pool's where the router lists its pools, else the host's in use over taskExecutorPoolSize: it is what ShardingTaskExecutorPoolMaxSize caps, as being opened is what ShardingTaskExecutorPoolMaxConnecting caps (both read with getParameter; n/r: not reported).</p>
<div class="scroll"><table class="steps routers">
<tr>{{range .RouterTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .RouterTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .LagTable.Rows}}<h4>Replication lag</h4>
<p class="note">How far each secondary's applied writes were behind the primary's, as the primary saw them, in each step's window. A secondary falls behind when its lag grows by 1.5 s or more in a window, or reaches 10 s.</p>
<div class="scroll"><table class="steps lag">
<tr>{{range .LagTable.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .LagTable.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{end}}
{{range .StepWarnings}}<p class="warn">⚠ {{.}}</p>
{{end}}{{range .StepNotes}}<p class="note">{{.}}</p>
{{end}}<p><small>RAL/WAL: mean latency of reads (find, scan) and writes (update, insert) in µs. Throughput and latencies are measured by the client over each step's window after its warm-up. Bound: what limited the step (client, pool, server, router_cpu, router_pool, network, or none), as the sweep judged it; its reasons are in results.jsonl.</small></p>
</body>
</html>
`))

var mdTmpl = texttemplate.Must(texttemplate.New("md").Funcs(texttemplate.FuncMap{"md": mdEscape, "row": mdRow}).Parse(`# poolsweep report
{{range .Runs}}
## {{md .Title}}

{{range .Facts}}- **{{index . 0}}**: {{md (index . 1)}}
{{end}}
| target | topology | server | hosts | URI (redacted) |
|---|---|---|---|---|
{{range .Targets}}| {{md .Name}} | {{md .Topology}} | {{md .Server}} | {{md .Hosts}} | {{md .URI}} |
{{end}}{{range .Notes}}
{{md .}}
{{end}}{{end}}
{{with .AB}}
{{.Markdown}}
{{range .Figures}}{{if .PNG}}
![{{md .Title}}]({{.PNG}})
{{end}}{{end}}{{end}}
{{if .Verdicts}}## Verdicts
{{with .Analysis}}
{{md .}}
{{end}}{{range .Commands}}
    {{.}}
{{end}}{{range .Verdicts}}
### {{md .Name}}

{{md .Verdict}}

` + "`" + `{{.Summary}}` + "`" + `
{{range .Warnings}}
> ⚠ {{md .}}
{{end}}{{end}}{{end}}
{{if .Curves}}## Deployments compared
{{range .Curves}}
### {{md .Title}}

**{{md .Verdict}}**

{{range .Facts}}- **{{md (index . 0)}}**: {{md (index . 1)}}
{{end}}{{if .Matched.Rows}}
{{row .Matched.Head}}
|---:|---:|---:|:---|
{{range .Matched.Rows}}{{row .}}
{{end}}{{end}}{{if .Table.Rows}}
{{row .Table.Head}}
|:---|---:|---:|---:|---:|
{{range .Table.Rows}}{{row .}}
{{end}}{{end}}{{range .Notes}}
{{md .}}
{{end}}{{end}}{{end}}
{{with .Fleet}}## Fleet

{{md .Intro}}
{{range .Sections}}
### {{md .Heading}}

{{range .Facts}}- {{md .}}
{{end}}{{if .Rows}}
{{row $.Fleet.Head}}
|:---|{{range $i, $h := $.Fleet.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .Rows}}{{row .}}
{{end}}{{end}}
**Recommendation:** {{md .Recommendation}}

{{range .Reasons}}- {{md .}}
{{end}}{{if .Setup}}
#### Connection setup

{{range .Setup}}- {{md .}}
{{end}}{{end}}{{range .Warnings}}
> ⚠ {{md .}}
{{end}}{{end}}
{{end}}{{if .Figures}}## Figures

Each figure's caption is in its picture.
{{range .Figures}}{{if .PNG}}
![{{md .Title}}]({{.PNG}})
{{end}}{{end}}{{range .Skipped}}
{{md .}}
{{end}}{{end}}
## Steps
{{range .Runs}}{{if gt (len $.Runs) 1}}
### {{md .Title}}
{{end}}
{{if .Table.Rows}}
{{row .Table.Head}}
|:---|{{range $i, $h := .Table.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .Table.Rows}}{{row .}}
{{end}}{{end}}{{if .OpenTable.Rows}}
Open loop (sweep --rate): latency from each call's intended start; uncorrected from its send; pool wait as a share of the latency (medians).

{{row .OpenTable.Head}}
|:---|{{range $i, $h := .OpenTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .OpenTable.Rows}}{{row .}}
{{end}}{{end}}{{if .ProfileTable.Rows}}
Profile steps (sweep --profile): each step's summary from its timeline (see the timeline figure). Time to fill: until the pool first held what the load needed; first-second and worst p99: by intended start; time to steady: until throughput and p99 stayed within the steady state's interval; created, closed, clears: the pool's churn over the step. – where the step gave no evidence.

{{row .ProfileTable.Head}}
|:---|{{range $i, $h := .ProfileTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .ProfileTable.Rows}}{{row .}}
{{end}}{{end}}{{if .EventTable.Rows}}
Events under load (sweep --event): when each was fired and its trigger ended on the timeline's clock, and what it did. Recover: from the event until throughput and p99 stayed within the steady state before it; refill: until the connections open, having fallen, reached again what it held in use; errors, retried (failed once, then succeeded on the driver's retry) and the churn: from the event until it recovered or its trigger ended, whichever was later; p99 during: the worst interval p99 until the trigger ended; degraded after: the load still outside the steady state as its phase ended, the trigger gone; peak connections: each host's most, the server's own count where it reported one, of its limit; reconnect storm: the connections the clients opened to the busiest host after the event, from how many clients, from the first opened until the last was ready, and the rate the server set them up at. – where the step gave no evidence.

{{row .EventTable.Head}}
|:---|{{range $i, $h := .EventTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .EventTable.Rows}}{{row .}}
{{end}}{{end}}{{if .HostTable.Rows}}
#### Pools per host

maxPoolSize is per client per host: the driver keeps one pool to each member or router it talks to. Role and open connections at the window's start; most in use, checkouts and pool wait in the window.

{{row .HostTable.Head}}
|:---|{{range $i, $h := .HostTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .HostTable.Rows}}{{row .}}
{{end}}{{end}}{{if .RouterTable.Rows}}
#### Routers' pools to the shards

Each mongos router's connections to each shard host in the step's window (connPoolStats, means; created: opened in the window). In use per pool is the busiest task-executor pool's where the router lists its pools, else the host's in use over taskExecutorPoolSize: it is what ShardingTaskExecutorPoolMaxSize caps, as being opened is what ShardingTaskExecutorPoolMaxConnecting caps (both read with getParameter; n/r: not reported).

{{row .RouterTable.Head}}
|:---|{{range $i, $h := .RouterTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .RouterTable.Rows}}{{row .}}
{{end}}{{end}}{{if .LagTable.Rows}}
#### Replication lag

How far each secondary's applied writes were behind the primary's, as the primary saw them, in each step's window. A secondary falls behind when its lag grows by 1.5 s or more in a window, or reaches 10 s.

{{row .LagTable.Head}}
|:---|{{range $i, $h := .LagTable.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .LagTable.Rows}}{{row .}}
{{end}}{{end}}{{end}}{{range .StepWarnings}}
> ⚠ {{md .}}
{{end}}{{range .StepNotes}}
{{md .}}
{{end}}
RAL/WAL: mean latency of reads (find, scan) and writes (update, insert) in µs. Bound: what limited the step, as the sweep judged it.
`))

// mdEscape keeps table cells and prose from turning into Markdown syntax;
// brackets too, because an A/B title's "[−19%, −14%]" would end an image's
// alt text.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "`", "'", "<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}

func mdRow(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdEscape(c)
	}
	return "| " + strings.Join(esc, " | ") + " |"
}
