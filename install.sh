#!/bin/sh
# Installs prefs, its man page and its bash, zsh and fish completions under PREFIX:
#   ./install.sh [PREFIX]      PREFIX: /usr/local as root, ~/.local otherwise
# It builds a static release binary first; PREFS_BINARY=PATH installs that one instead.
set -eu
cd "$(dirname "$0")"
if [ $# -gt 1 ]; then
    echo "usage: ./install.sh [PREFIX]" >&2
    exit 64
elif [ $# -eq 1 ]; then
    prefix=$1
elif [ "$(id -u)" -eq 0 ]; then
    prefix=/usr/local
else
    prefix=$HOME/.local
fi
binary=${PREFS_BINARY:-}
if [ -z "$binary" ]; then
    swift build -c release --product prefs -Xswiftc -static-executable
    binary=.build/release/prefs
fi
share=$prefix/share
install -d "$prefix/bin" "$share/man/man1" "$share/bash-completion/completions" "$share/zsh/site-functions" \
    "$share/fish/vendor_completions.d"
install -m 755 "$binary" "$prefix/bin/prefs"
install -m 644 man/prefs.1 "$share/man/man1/prefs.1"
install -m 644 completions/prefs.bash "$share/bash-completion/completions/prefs"
install -m 644 completions/prefs.zsh "$share/zsh/site-functions/_prefs"
install -m 644 completions/prefs.fish "$share/fish/vendor_completions.d/prefs.fish"
echo "installed $prefix/bin/prefs, $share/man/man1/prefs.1 and the bash, zsh and fish completions"
echo "to have macOS's defaults too (prefs run as defaults is defaults): ln -s prefs $prefix/bin/defaults"
