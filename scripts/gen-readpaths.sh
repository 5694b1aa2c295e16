#!/bin/bash
# Regenerates internal/corpus/listed.go, the compiled-in copy of
# testdata/servers/read-paths.txt (inspect --replies lists every read path
# without the source tree); internal/corpus's TestListedIsTheFile fails
# until it is run after the file changes.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  echo '// Code generated from testdata/servers/read-paths.txt by scripts/gen-readpaths.sh; DO NOT EDIT (TestListedIsTheFile holds it to the file).'
  echo
  echo 'package corpus'
  echo
  echo "// listed is read-paths.txt's lines, for code that runs without the source"
  echo "// tree (inspect --replies): every field poolsweep reads, in the file's order."
  echo 'var listed = []string{'
  grep -vE '^\s*(#|$)' testdata/servers/read-paths.txt | sed 's/.*/\t"&",/'
  echo '}'
} > internal/corpus/listed.go
gofmt -l internal/corpus
