# The reporter's one JSON writer in-process (tests/report/json_writer.c,
# linked with render/json/json.o and util/utf8.o only): the pretty layout of
# --json, the compact script-safe layout of the HTML page's data ('<', '>',
# '&', U+2028/2029 escaped), bytes that are not UTF-8, deep nesting.
source "$ROOT/tests/lib.sh"
"$TPROG/report_json_unit" || fail "json writer"
