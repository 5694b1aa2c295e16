package report

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/plot"
)

// abView is the A/B part of a report: compare's Markdown (verdicts, the
// study-shaped table, unmatched steps, method) and the A/B figures.
type abView struct {
	HTML     template.HTML // the Markdown converted, for the HTML report
	Markdown string
	Figures  []figView
}

func abViewOf(c *compare.Comparison, abFigs []plot.Figure, abPNGNames []string, withSVG bool) (*abView, error) {
	if c == nil {
		return nil, nil
	}
	var md bytes.Buffer
	if err := compare.WriteMarkdown(&md, c); err != nil {
		return nil, fmt.Errorf("comparison: %w", err)
	}
	v := &abView{Markdown: md.String()}
	if withSVG {
		v.HTML = markdownToHTML(md.String())
	}
	figs, err := figViews(abFigs, abPNGNames, withSVG)
	if err != nil {
		return nil, err
	}
	v.Figures = figs
	return v, nil
}

var (
	mdStrong    = regexp.MustCompile(`\*\*(.+?)\*\*`)
	mdCode      = regexp.MustCompile("`([^`]+)`")
	mdCellSplit = regexp.MustCompile(`(^|[^\\])\|`)
)

// markdownToHTML converts the small Markdown subset compare.WriteMarkdown
// writes (## and ### headings, "- " lists, pipe tables, **bold**, `code`,
// paragraphs) to HTML. Every piece of text is escaped first, so nothing in
// the input can become markup.
func markdownToHTML(md string) template.HTML {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	inList := false
	closeList := func() {
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
	}
	for i := 0; i < len(lines); i++ {
		ln := strings.TrimRight(lines[i], " ")
		switch {
		case ln == "":
			closeList()
		case strings.HasPrefix(ln, "### "):
			closeList()
			b.WriteString("<h3>" + mdInline(ln[4:]) + "</h3>\n")
		case strings.HasPrefix(ln, "## "):
			closeList()
			b.WriteString("<h2>" + mdInline(ln[3:]) + "</h2>\n")
		case strings.HasPrefix(ln, "- "):
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			b.WriteString("<li>" + mdInline(ln[2:]) + "</li>\n")
		case strings.HasPrefix(ln, "|"):
			closeList()
			b.WriteString("<div class=\"scroll\"><table class=\"ab\">\n")
			head := true
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				cells := mdCells(lines[i])
				if isSeparatorRow(cells) {
					continue
				}
				tag := "td"
				if head {
					tag = "th"
				}
				b.WriteString("<tr>")
				for _, c := range cells {
					b.WriteString("<" + tag + ">" + mdInline(c) + "</" + tag + ">")
				}
				b.WriteString("</tr>\n")
				head = false
			}
			i--
			b.WriteString("</table></div>\n")
		default:
			closeList()
			b.WriteString("<p>" + mdInline(ln) + "</p>\n")
		}
	}
	closeList()
	return template.HTML(b.String()) //nolint:gosec // every text run is escaped by mdInline
}

// mdCells splits a pipe-table row on unescaped pipes.
func mdCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	marked := mdCellSplit.ReplaceAllString(row, "$1\x00")
	parts := strings.Split(marked, "\x00")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func isSeparatorRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || c == "" {
			return false
		}
	}
	return true
}

// mdInline escapes text for HTML, then turns **bold** and `code` into tags
// and "\|" back into "|".
func mdInline(s string) string {
	s = template.HTMLEscapeString(strings.ReplaceAll(s, `\|`, "|"))
	s = mdCode.ReplaceAllString(s, "<code>$1</code>")
	return mdStrong.ReplaceAllString(s, "<strong>$1</strong>")
}
