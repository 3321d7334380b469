#!/usr/bin/env bash
# Refresh the screenshots in docs/screenshots on purpose: the browser tests that take them write there
# instead of under the test var dir. Review the images before committing them.
set -euo pipefail
cd "$(dirname "$0")/.."
export MEMORYAPP_SCREENSHOTS="$PWD/docs/screenshots"
exec ./test tests/browser/test_chat.py tests/browser/test_chat_offline.py tests/browser/test_chat_memory.py tests/browser/test_memories_page.py tests/browser/test_memory_graph.py \
  tests/browser/test_narrow_screens.py::test_it_shows_the_message_box_on_a_phone_as_the_chat_opens "$@"
