#!/bin/bash
# The project stands on its own and its front door stays short:
#   - no file cites the folder of shared material outside the repository (it does not ship) or a
#     tracker's numbers (a reader has no tracker): cite a paper or docs/ instead;
#   - README.md has at most 160 lines, and its layout table names every folder under src/ and
#     every top-level folder.
# Each finding is printed as FILE:LINE: TEXT. Files: the tracked ones and new ones git does not
# ignore (so build folders are skipped), or every file outside build*/ and .git without git.
# Usage: front_door.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

list_files() {
    if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . \( -name .git -o -name 'build*' \) -prune -o -type f -printf '%P\0'
    fi
}
mapfile -d '' files < <(list_files)
[ "${#files[@]}" -gt 0 ] || { echo "FAIL: no files found under $1" >&2; exit 1; }
existing=()
for file in "${files[@]}"; do [ -f "$file" ] && existing+=("$file"); done

# search NAME REGEX [ALLOWED]: every line of a text file that matches the extended REGEX, less the
# lines that match ALLOWED, is a finding.
search() {
    local name=$1 regex=$2 allowed=${3:-}
    local hits
    hits=$(printf '%s\0' "${existing[@]}" | xargs -0 grep -nIE -e "$regex" -- 2> /dev/null)
    [ -n "$allowed" ] && hits=$(grep -vE -e "$allowed" <<< "$hits")
    if [ -n "$hits" ]; then
        fail "$name:"
        echo "$hits" >&2
    fi
}
search "a path into the shared folder beside the repository" '\.\./shared/|shared/(bench|seeds)'
search "an issue number" '\b[Ii]ssues? #?[0-9]+\b'
# "#" and a number at the start of a word. Not one: an HTML entity (&#39;), a colour ("#333",
# color:#555), a URL anchor, a C preprocessor line (#include has no digit), and the tape's own
# numbering of its entries, which `tapeformer tape` prints and docs quote as a range "down to #0".
search "a tracker number" '(^|[^&[:alnum:]_"'"'"'=:/#])#[0-9]{1,5}\b' 'down to #0\b'

lines=$(wc -l < README.md)
[ "$lines" -le 160 ] || fail "README.md has $lines lines: the front door keeps to 160; move detail into docs/"

# The layout table: the README's lines that start with "| `".
layout=$(grep -E '^\| `' README.md)
named() { grep -qF "| \`$1/\`" <<< "$layout"; }
mapfile -t src_dirs < <(printf '%s\n' "${existing[@]}" | grep '^src/.*/' | while read -r path; do
    dir=$(dirname "$path")
    while [ "$dir" != . ]; do echo "$dir"; dir=$(dirname "$dir"); done
done | grep -vx src | sort -u)
[ "${#src_dirs[@]}" -gt 5 ] || fail "found only ${#src_dirs[@]} folders under src/"
for dir in "${src_dirs[@]}"; do
    named "$dir" || fail "README.md's layout table does not name $dir/"
done
mapfile -t top_dirs < <(printf '%s\n' "${existing[@]}" | grep -E '^[^./][^/]*/' | cut -d/ -f1 | grep -vx src | sort -u)
for dir in "${top_dirs[@]}"; do
    named "$dir" || fail "README.md's layout table does not name $dir/"
done

[ "$failures" = 0 ] || exit 1
echo "front door: no outside or tracker citations in ${#existing[@]} files; README.md $lines lines," \
     "its layout names the ${#src_dirs[@]} folders under src/ and the ${#top_dirs[@]} other top-level ones"
