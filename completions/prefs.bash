# bash completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
# named suite. Source it, or install it as /usr/share/bash-completion/completions/prefs.
#
# Suite names, keys and file names are data: they may hold spaces, quotes, $(...), backquotes, glob
# characters or newlines. They come from prefs NUL-separated (--null), are compared with the word
# typed so far once its quoting is removed, and are quoted here for the command line. Nothing is
# ever expanded or split (compgen -W would run what a key holds). A name prefs would take for an
# option (-0, or one starting with --) is offered after a -- unless one was typed.

# Splits $1, the command line up to the cursor, the way the shell will: _prefs_words gets the words
# with their quoting removed (the last one is the word being completed, possibly empty),
# _prefs_raw that last word as typed, and _prefs_state the quoting open at the end: '' (none),
# "'", '"' or "\$'".
_prefs_lex() {
    local LC_ALL=C  # byte by byte: quotes and blanks are ASCII, other bytes are copied
    local line=$1 word= raw= state= c e i=0 n=${#1} started=
    _prefs_words=()
    while ((i < n)); do
        c=${line:i:1}
        ((i++))
        if [[ -z $started && -z $state && $c == [$' \t\n'] ]]; then continue; fi
        started=1 raw+=$c
        case $state$c in
            "''" | '""') state= ;;
            "'"?) word+=$c ;;
            '"\') e=${line:i:1}
                if [[ $e == [\$\`\"\\$'\n'] ]]; then ((i++)); raw+=$e; [[ $e == $'\n' ]] || word+=$e; elif [[ $e ]]; then word+=$c; fi ;;
            '"'?) word+=$c ;;
            "\$''") state= ;;
            "\$'\\") e=${line:i:1}; ((i++)); raw+=$e
                case $e in
                    [0-7]) e=${line:i-1:3}; e=${e%%[!0-7]*}; ((i += ${#e} - 1)); raw+=${e:1}; printf -v e "\\$e" ;;
                    x) e=${line:i:2}; e=${e%%[!0-9A-Fa-f]*}; ((i += ${#e})); raw+=$e; [[ $e ]] && printf -v e "\\x$e" ;;
                    n) e=$'\n' ;; t) e=$'\t' ;; r) e=$'\r' ;; a) e=$'\a' ;; b) e=$'\b' ;;
                    e | E) e=$'\e' ;; f) e=$'\f' ;; v) e=$'\v' ;;
                esac
                word+=$e ;;
            "\$'"?) word+=$c ;;
            [$' \t\n']) _prefs_words+=("$word"); word= raw= started= ;;
            '\') e=${line:i:1}; ((i++)); raw+=$e; [[ $e == $'\n' ]] || word+=$e ;;
            "'" | '"') state=$c ;;
            '$') if [[ ${line:i:1} == "'" ]]; then ((i++)); raw+="'"; state="\$'"; else word+=$c; fi ;;
            *) word+=$c ;;
        esac
    done
    _prefs_words+=("$word")
    _prefs_raw=$raw _prefs_state=$state
}

# Adds to COMPREPLY each of the words given that starts with the word typed, quoted as the rest of
# what readline replaces: the word from its start, from just after an opening quote, or from just
# after a COMP_WORDBREAKS character such as : or = (readline appends a closing quote). With
# _prefs_names set, the words are names: one that looks like an option goes after a --.
_prefs_offer() {
    local word rest quoted guard=
    [[ $_prefs_names && -z $_prefs_dashdash && -z $_prefs_keep && -z $_prefs_state ]] && guard=1
    for word; do
        [[ $word == "$_prefs_cur"* ]] || continue
        rest=${word:${#_prefs_keep}}
        case $_prefs_state in
            "'") quoted=${rest//\'/\'\\\'\'} ;;
            '"') quoted=${rest//\\/\\\\}; quoted=${quoted//\$/\\\$}; quoted=${quoted//\`/\\\`}
                quoted=${quoted//\"/\\\"}; quoted=${quoted//!/\"\\!\"} ;;
            "\$'") quoted=${rest//\\/\\\\}; quoted=${quoted//\'/\\\'}; quoted=${quoted//$'\n'/\\n}
                quoted=${quoted//$'\t'/\\t}; quoted=${quoted//$'\r'/\\r} ;;
            *) quoted=; [[ -z $rest ]] || printf -v quoted %q "$rest" ;;
        esac
        [[ $guard && ($word == --* || $word == -0 || $word == -h) ]] && quoted="-- $quoted"
        COMPREPLY+=("$quoted")
    done
}

# Offers the NUL-separated names that `prefs ARGUMENTS...` prints (nothing when it fails).
_prefs_offer_names() {
    local -a names
    local _prefs_names=1
    mapfile -d '' -t names < <(prefs "${_prefs_store[@]}" "$@" 2>/dev/null)
    _prefs_offer "${names[@]}"
}

# The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
_prefs_offer_suites() {
    local -a names
    local name _prefs_names=1
    mapfile -d '' -t names < <(prefs "${_prefs_store[@]}" domains --null 2>/dev/null)
    for name in "${names[@]}"; do [[ $name == NSGlobalDomain ]] || _prefs_offer "$name"; done
    _prefs_offer -g NSGlobalDomain
}

# The keys of the suite or file $1 (more arguments go to prefs read, e.g. --stored).
_prefs_offer_keys() { [[ -n $1 ]] && _prefs_offer_names read --keys --null "${@:2}" -- "$1"; }

# The choices the schema of the suite ${operands[0]} gives the key being written a value: the
# operand before the cursor, or the one before a scalar type flag (prefs describe --choices).
_prefs_offer_choices() {
    local key=${operands[-1]}
    [[ $key == -@(string|int|integer|float|date|data) ]] && key=${operands[-2]}
    local -a choices
    mapfile -d '' -t choices < <(prefs "${_prefs_store[@]}" describe --choices --null -- "${operands[0]}" "$key" 2>/dev/null)
    _prefs_offer "${choices[@]}"
}

# File and directory names (a directory with a /) starting with the word typed after $1 (a prefix
# such as @). A word typed with a leading ~ is a home directory: bash completes it itself, and
# only the files are offered.
_prefs_offer_files() {
    local head=${1-} file restore
    local -a files
    if [[ -z $head && $_prefs_raw == '~'* ]]; then
        compopt -o filenames
        mapfile -t COMPREPLY < <(compgen -f -- "$_prefs_raw")
        return
    fi
    restore=$(shopt -p nullglob failglob dotglob)
    shopt -s nullglob dotglob; shopt -u failglob
    files=("${_prefs_cur#"$head"}"*)
    eval "$restore"
    for file in "${files[@]}"; do
        [[ -d $file ]] && file+=/
        _prefs_offer "$head$file"
    done
    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace
}

# The command line up to the cursor, into _prefs_line (COMP_POINT counts bytes, and ${COMP_LINE:0:N}
# counts characters except in the C locale).
_prefs_before_cursor() { local LC_ALL=C; _prefs_line=${COMP_LINE:0:COMP_POINT}; }

# The type flags that take one VALUE (a pattern for @(...)).
_prefs_scalar_types='-string|-int|-integer|-float|-bool|-boolean|-date|-data|-json'

_prefs() {
    COMPREPLY=()
    local _prefs_line _prefs_words _prefs_raw _prefs_state _prefs_cur _prefs_keep= _prefs_dashdash=
    local -a _prefs_store=()
    _prefs_before_cursor
    _prefs_lex "$_prefs_line"
    local -a words=("${_prefs_words[@]}")
    _prefs_cur=${words[-1]}
    # Readline replaces $2: the whole word, or what follows an opening quote or a COMP_WORDBREAKS
    # character. The part before it stays, with the quoting it leaves open.
    if [[ $2 == "$_prefs_raw" || $_prefs_raw != *"$2" ]]; then
        _prefs_state=
    else
        local raw=$_prefs_raw
        _prefs_lex "${raw%"$2"}"
        _prefs_keep=${_prefs_words[-1]} _prefs_raw=$raw
    fi
    # --store URL, -currentHost and -host NAME before the verb: given to the prefs calls that list
    # names, then left out.
    while ((${#words[@]} > 2)) && [[ ${words[1]} == --store || ${words[1]} == --store=* || ${words[1]} == -currentHost || ${words[1]} == -host ]]; do
        if [[ ${words[1]} == --store=* || ${words[1]} == -currentHost ]]; then
            _prefs_store+=("${words[1]}") words=("${words[0]}" "${words[@]:2}")
        elif ((${#words[@]} > 3)); then
            _prefs_store+=("${words[1]}" "${words[2]}") words=("${words[0]}" "${words[@]:3}")
        else
            return # the URL or the host itself
        fi
    done
    local cur=$_prefs_cur count=${#words[@]}
    if ((count == 2)); then
        _prefs_offer read read-type write delete rename register reset domains find lint export import migrate dump load watch exec edit describe check gc help --help -h --version --store -currentHost -host
        return
    fi
    local verb=${words[1]} prev=${words[count - 2]} i word
    # The operands typed so far (options and the values of the options that take one left out).
    local -a operands=()
    for ((i = 2; i < count - 1; i++)); do
        word=${words[i]}
        case $word in
            --) operands+=("${words[@]:i+1:count-i-2}"); _prefs_dashdash=1; break ;;
            --format | --defaults | --if-equals | --delete | --from | --bool-keys | --rename | --timeout | --grace | --schema | --exec | --match) ((i++)); continue ;;
            --keys) [ "$verb" = read ] || ((i++)); continue ;; # a value for export, migrate and exec
            --default) # [TYPE] VALUE
                ((i++)); [[ ${words[i]} == @($_prefs_scalar_types) ]] && ((i++)); continue ;;
            -0) [[ $verb == @(read|domains|find) ]] && continue ;;
            -h) continue ;; # help, anywhere before --
        esac
        [[ $word == --* ]] || operands+=("$word")
    done
    local position=${#operands[@]}
    # After read's --default: a scalar TYPE (or an untyped VALUE), then the TYPE's VALUE.
    if [[ $verb == read && ${words[count - 3]} == --default && $prev == @($_prefs_scalar_types) ]]; then
        [[ $prev == -bool* ]] && _prefs_offer true false yes no
        return
    fi
    case $prev in
        --default) [[ $cur == -* ]] && _prefs_offer -string -int -integer -float -bool -boolean -date -data -json; return ;;
        --format)
            if [ "$verb" = export ]; then _prefs_offer xml binary openstep json typed-json sh env github; else _prefs_offer xml binary openstep json typed-json; fi
            return ;;
        --defaults | --schema) _prefs_offer_files; return ;;
        --from) _prefs_offer file ini env suite; return ;;
        --keys | --bool-keys)
            # Comma-separated keys: of the DOMAIN for export, of the SOURCE (a suite or a plist or
            # JSON file) for migrate. (read's --keys takes no value.)
            if [ "$verb" != read ]; then
                local from=${operands[0]} head= key
                [ "$verb" = migrate ] && from=${operands[1]}
                [[ $cur == *,* ]] && head=${cur%,*},
                local -a keys
                [ -n "$from" ] && mapfile -d '' -t keys < <(prefs "${_prefs_store[@]}" read --stored --keys --null -- "$from" 2>/dev/null)
                for key in "${keys[@]}"; do _prefs_offer "$head$key"; done
                return
            fi ;;
        --if-equals | --rename | --timeout | --grace | --exec | --match) return ;;
        --delete) [ "$position" -ge 1 ] && _prefs_offer_keys "${operands[0]}"; return ;;
    esac
    # exec: after --, a COMMAND (found on PATH), then its arguments (files).
    if [[ $verb == exec && $_prefs_dashdash ]]; then
        local -a commands
        if [[ ${words[count - 2]} == -- ]]; then mapfile -t commands < <(compgen -c -- "$cur" | sort -u); _prefs_offer "${commands[@]}"; else _prefs_offer_files; fi
        return
    fi
    if [[ $cur == --* ]]; then
        case $verb in
            read) _prefs_offer --json --keys --match --raw --null --origin --stored --defaults --format --lossy --compact --default --help ;;
            read-type) _prefs_offer --origin --stored --defaults --help ;;
            write) _prefs_offer --exit-code --dry-run --if-absent --if-equals --external --inline --schema --no-schema --help ;;
            delete | reset) _prefs_offer --exit-code --dry-run --help ;;
            rename) _prefs_offer --exit-code --dry-run --schema --no-schema --help ;;
            register) _prefs_offer --replace --delete --schema --no-schema --exit-code --dry-run --help ;;
            domains) _prefs_offer --null --help ;;
            find) _prefs_offer --json --compact --null --help ;;
            export) _prefs_offer --format --keys --effective --defaults --lossy --compact --help ;;
            import) _prefs_offer --replace --if-absent --format --dry-run --exit-code --schema --no-schema --help ;;
            migrate) _prefs_offer --from --keys --bool-keys --rename --infer-types --decode-json-strings --overwrite --skip-errors --dry-run --exit-code --schema --no-schema --help ;;
            describe) _prefs_offer --schema --choices --null --help ;;
            check) _prefs_offer --schema --help ;;
            watch) _prefs_offer --json --compact --exec --initial --once --timeout --help ;;
            exec) _prefs_offer --keys --help ;;
            dump) _prefs_offer --registered --help ;;
            load) _prefs_offer --dry-run --exit-code --no-schema --help ;;
            gc) _prefs_offer --grace --dry-run --exit-code --help ;;
            *) _prefs_offer --help ;;
        esac
        return
    fi
    [[ $cur == -* && $verb == @(read|domains|find) ]] && _prefs_offer -0
    case $verb in
        read | read-type | write | delete | rename | export | register | reset)
            if [ "$position" -eq 0 ]; then
                # register and reset take a suite, never a file.
                _prefs_offer_suites
                [ "$verb" = register ] || [ "$verb" = reset ] || _prefs_offer_files
            elif [ "$verb" = reset ]; then
                _prefs_offer_keys "${operands[0]}" --stored
            elif [ "$verb" = delete ]; then
                _prefs_offer_keys "${operands[0]}"
            elif [ "$position" -eq 1 ] && [ "$verb" = register ]; then
                _prefs_offer_keys "${operands[0]}"
                _prefs_offer_files
            elif [ "$position" -eq 1 ] && [ "$verb" != export ]; then
                _prefs_offer_keys "${operands[0]}"
            elif [ "$verb" = write ] || [ "$verb" = register ]; then
                if [[ $prev == -string-file ]]; then
                    _prefs_offer_files
                elif [[ $prev == -@(data|json) && $cur == @* ]]; then
                    _prefs_offer_files @
                elif [[ $cur == -* ]]; then
                    _prefs_offer -string -int -integer -float -bool -boolean -date -data -json -array -array-add -array-insert -dict -dict-add -int-add -float-add -string-file
                elif [[ $prev == -bool* ]]; then
                    _prefs_offer true false yes no
                else
                    _prefs_offer_choices
                fi
            elif [ "$verb" = export ]; then
                _prefs_offer_files
            fi
            ;;
        import | migrate)
            # DOMAIN: a suite or a file; import's PATH: a file; migrate's SOURCE: a suite or a file.
            if [ "$position" -eq 0 ] || { [ "$position" -eq 1 ] && [ "$verb" = migrate ]; }; then
                _prefs_offer_suites
                _prefs_offer_files
            elif [ "$position" -eq 1 ]; then
                _prefs_offer_files
            fi
            ;;
        watch)
            # DOMAIN: a suite or a file; then any number of its keys.
            if [ "$position" -eq 0 ]; then
                _prefs_offer_suites
                _prefs_offer_files
            else
                _prefs_offer_keys "${operands[0]}"
            fi
            ;;
        exec) _prefs_offer_suites; _prefs_offer_files ;; # DOMAINs, then -- COMMAND
        edit) [ "$position" -eq 0 ] && { _prefs_offer_suites; _prefs_offer_files; } ;;
        describe)
            # DOMAIN, then one of its keys.
            if [ "$position" -eq 0 ]; then
                _prefs_offer_suites
            elif [ "$position" -eq 1 ]; then
                _prefs_offer_keys "${operands[0]}"
            fi
            ;;
        check | gc) _prefs_offer_suites ;;
        lint) _prefs_offer_files ;;
        dump | load) [ "$position" -eq 0 ] && _prefs_offer_files ;; # FILE (or - for standard output or input)
        help) [ "$position" -eq 0 ] && _prefs_offer read read-type write delete rename register reset domains find lint export import migrate dump load watch exec edit describe check gc help ;;
    esac
}
complete -F _prefs prefs
