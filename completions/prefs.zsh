#compdef prefs
# zsh completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
# named suite. Install this file as _prefs in a directory of $fpath. Written by `prefs completion
# zsh` from prefs's command table: generate it again rather than edit it.
#
# Suite names and keys are data: they may hold spaces, quotes, $(...), colons or newlines. They come
# from prefs NUL-separated (--null) and go to compadd as they are, which quotes them for the command
# line; the operands typed before are unquoted before prefs sees them. A name prefs would take for
# an option (-0, or one starting with --) is offered after a -- unless one was typed.

# Offers the names $argv[3,-1] under the tag $1 described as $2.
_prefs_names() {
    local tag=$1 description=$2 expl
    local -a names=("${@[3,-1]}") optionlike
    if [[ -z $dashdash ]]; then
        optionlike=(${(M)names:#(--*|-0|-h)})
        names=(${names:#(--*|-0|-h)})
    fi
    _wanted $tag expl $description compadd -a names
    (( $#optionlike )) && _wanted $tag expl $description compadd -P '-- ' -a optionlike
}

# The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
_prefs_suites() {
    local -a names=(${(0)"$(prefs $_prefs_store domains --null 2>/dev/null)"} -g NSGlobalDomain)
    _prefs_names suites suite "${(@u)names}"
}

# The keys of the suite or file $1 (more arguments go to prefs read, e.g. --stored).
_prefs_keys() {
    [[ -n $1 ]] || return 1
    _prefs_names keys key ${(0)"$(prefs $_prefs_store read --keys --null "${@[2,-1]}" -- "$1" 2>/dev/null)"}
}

# The stored keys of the suite or file $1, for a comma-separated list (_sequence passes the
# compadd options that follow).
_prefs_key_list() {
    local from=$1
    local -a keys
    shift
    keys=(${(0)"$(prefs $_prefs_store read --stored --keys --null -- "$from" 2>/dev/null)"})
    compadd "$@" -a keys
}

# The choices the schema of the suite $operands[1] gives the key being written a value: the
# operand before the cursor, or the one before a TYPE flag (prefs describe --choices).
_prefs_choices() {
    local key=$operands[-1]
    [[ $key == ($~choice_types) ]] && key=$operands[-2]
    local -a choices
    choices=(${(0)"$(prefs $_prefs_store describe --choices --null -- "$operands[1]" "$key" 2>/dev/null)"})
    (( $#choices )) && compadd -a choices
}

# What follows a KEY in write and register (kind value): a TYPE flag, a boolean after -bool, a file
# after -string-file or -data @, else the choices the suite's schema gives the KEY.
_prefs_value() {
    local prev=${(Q)words[CURRENT-1]}
    if [[ $prev == ($~file_types) ]]; then
        _files
    elif [[ $prev == ($~at_file_types) && $PREFIX == @* ]]; then
        compset -P @
        _files
    elif [[ $PREFIX == -* ]]; then
        compadd -a types
    elif [[ $prev == ($~bool_types) ]]; then
        compadd -a bools
    else
        _prefs_choices
    fi
}

# Offers what a word of the kind $1 may be (see _prefs_verb).
_prefs_complete() {
    local expl
    local -a choices
    case $1 in
        (file) _files ;;
        (suite) _prefs_suites ;;
        (domain) _prefs_suites; _files ;;
        (key) _prefs_keys "$operands[1]" ;;
        (stored-key) _prefs_keys "$operands[1]" --stored ;;
        (key-or-file) _prefs_keys "$operands[1]"; _files ;;
        (value) _prefs_value ;;
        (verb) _describe -t verbs 'verb' verbs ;;
        (typed) [[ $PREFIX == -* ]] && compadd -a scalars ;;
        ('choice '*) choices=(${=1#choice }); _wanted values expl value compadd -a choices ;;
        ('key-list '*) _sequence _prefs_key_list "$operands[$(( ${1#key-list } + 1 ))]" ;;
        (*) return 1 ;;
    esac
}

# Sets kind to what the verb's option spelled $1 takes (flag: nothing); fails when $1 is none of them.
_prefs_option_kind() {
    local i
    local -a spellings
    for (( i = 1; i <= $#verb_options; i += 3 )); do
        spellings=(${=verb_options[i]})
        (( ${spellings[(Ie)$1]} )) || continue
        kind=${verb_options[i+1]%...}
        return 0
    done
    return 1
}

# Offers the verb's options that the word typed may start (for --, the long ones; for -, the short
# ones), but not one already given unless it may be given again.
_prefs_options() {
    local i spelling
    local -a offers
    for (( i = 1; i <= $#verb_options; i += 3 )); do
        if [[ $verb_options[i+1] != *... ]]; then
            for spelling in ${=verb_options[i]}; do (( ${given[(Ie)$spelling]} )) && continue 2; done
        fi
        for spelling in ${=verb_options[i]}; do
            [[ ($PREFIX == --* && $spelling == --*) || ($PREFIX != --* && $spelling == -?) ]] && offers+=("$spelling:$verb_options[i+2]")
        done
    done
    _describe -t options 'option' offers
}

# The operands typed before the cursor, unquoted, into $operands (the verb's options and their values
# left out), the options into $given, and the position of a -- into $dashdash. Call it after the verb
# has been shifted off $words.
_prefs_operands() {
    local i word
    operands=() given=() dashdash=
    for (( i = 2; i < CURRENT; i++ )); do
        word=${(Q)words[i]}
        if [[ $word == -- ]]; then
            operands+=("${(@Q)words[i+1,CURRENT-1]}")
            dashdash=$i
            break
        fi
        [[ $word == -h ]] && continue # help, anywhere before --
        if _prefs_option_kind $word; then
            given+=($word)
            case $kind in
                (flag) ;;
                (typed) (( i++ )); [[ ${(Q)words[i]} == ($~scalar_types) ]] && (( i++ )) ;; # [TYPE] VALUE
                (*) (( i++ )) ;;
            esac
        elif [[ $word == --*=* ]] && _prefs_option_kind ${word%%=*}; then
            given+=(${word%%=*})
        elif [[ $word != --* ]]; then
            operands+=("$word")
        fi
    done
}

# The command table: the verbs and the options before the verb (NAME:DESCRIPTION), those that
# choose the suites (one word, or taking the next as their value), and the TYPE flags (those
# that take one VALUE, those whose VALUE may be a schema's choice, a boolean, a FILE or @FILE).
_prefs_table() {
    verbs=(
        'read:print a value (a scalar bare, for $(...)), a suite, or every suite'
        'read-type:print the type of a value (string, integer, float, boolean, date...)'
        'write:set values, typed as defaults types them, in one locked write'
        'delete:remove keys (all or nothing), or the whole suite'
        'rename:move a value to a new key'
        'register:record registered defaults: values reads show while nothing is stored'
        'reset:remove stored values so the registered defaults show again'
        'domains:list the suites (those GLOB matches), one per line (NSGlobalDomain: the global suite)'
        'find:find suites, keys and string values that contain WORD'
        'lint:check property-list and JSON files, like plutil -lint'
        'export:write a suite or a file in another format'
        'import:merge a plist or JSON dictionary into a suite (or replace it), all or nothing'
        'migrate:bring settings in from a plist, JSON, INI or .env file or a suite, with a plan and a report'
        'dump:write every suite as one lossless document, for load (a backup)'
        'load:restore what dump wrote, each suite all or nothing, with a report'
        'watch:print each change of a suite'\''s values (or of the KEYs) as it happens, or run COMMAND for it'
        'exec:run COMMAND with the suites'\'' values in its environment (a later DOMAIN wins)'
        'lock:run COMMAND holding the lock NAME of the store (75: not obtained; 78: lost, COMMAND stopped)'
        'locks:list the held locks of the store: NAME, user@host, pid, since, token (tab-separated)'
        'history:list the versions kept of a suite'\''s changes, newest first: VERSION, time, user@host, verb, keys (tab-separated)'
        'diff:show what changed between two versions of a suite (V2: the newest)'
        'rollback:put a suite back as a version of its history left it (a new version; 4 if it moved meanwhile)'
        'edit:edit a suite'\''s values in $VISUAL or $EDITOR (typed JSON), checked, no concurrent change lost'
        'describe:print a suite'\''s schema: each key'\''s type, default, range or choices, description and current origin'
        'check:verify the external values of suites: every blob present with its recorded size and SHA-256; list orphan blobs'
        'gc:remove expired values and orphan blobs'
        'completion:print the completion script for bash, zsh or fish'
        'help:show help for prefs or for one verb'
    )
    global=(
        '--help:show this help (also -h)'
        '-h:show this help (also -h)'
        '--version:print the version'
        '--store:before the verb: keep suites in etcd (etcd://HOST:PORT[,HOST:PORT...][/PREFIX], etcds://... for TLS; default $PREFS_STORE, else files)'
        '-currentHost:before the verb: the suites of this machine (ByHost; host ID $PREFS_HOST_ID, else /etc/machine-id)'
        '-host:before the verb: the suites of host NAME (ByHost)'
    )
    scope_words='--store=*|-currentHost'
    scope_pairs='--store|-host'
    types=(
        -string -int -integer -float -bool -boolean -date -data -json -string-file -array -array-add
        -array-insert -dict -dict-add -int-add -float-add
    )
    scalars=(-string -int -integer -float -bool -boolean -date -data -json)
    scalar_types='-string|-int|-integer|-float|-bool|-boolean|-date|-data|-json'
    choice_types='-string|-int|-integer|-float|-date|-data'
    bool_types='-bool|-boolean'
    file_types=-string-file
    at_file_types='-data|-json'
    bools=(true false yes no)
}

# _prefs_verb VERB sets verb_options (for each of the verb's options: its spellings, what its value
# is (flag for none, or a kind as below, followed by ... when the option may be repeated) and
# its description), kinds (what each operand is: suite, domain (a suite or a file), key,
# stored-key, key-or-file, value (a TYPE flag or VALUE after a KEY), file, verb, choice WORD...,
# text (nothing offered); options also key-list N (keys stored in operand N, comma-separated) and
# typed ([TYPE] VALUE); the last operand, followed by ..., goes on) and command (the operands end
# with -- COMMAND [ARG...]). It fails for a word that is no verb.
_prefs_verb() {
    case $1 in
        (read)
            verb_options=(
                --json flag 'print JSON instead of the readable form'
                --keys flag 'print the keys of the suite (or of the dictionary at KEY), one per line'
                --raw flag 'print a string'\''s or data value'\''s bytes exactly, with no newline (an external one streams from its blob)'
                --match text 'with --keys, only the keys GLOB matches (* ? [...]; \ escapes)'
                '--null -0' flag 'with --keys, end each key with a NUL byte instead of a newline'
                --origin flag 'say where each value came from: managed:FILE, stored, global, system:FILE, registered:FILE, command-line or schema:FILE'
                --stored flag 'only the suite'\''s own stored values, no global suite or registered defaults'
                --defaults file... 'registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)'
                --format 'choice binary xml openstep json typed-json' 'write the value as a document: xml, binary, openstep, json or typed-json (as plutil -extract)'
                --lossy flag 'with JSON, write dates as ISO 8601 strings and data as base64 (else they are refused: JSON has no such types)'
                --compact flag 'print JSON on one line (given alone, it asks for JSON)'
                --default typed 'print VALUE (typed as write types it: --default -int 30) when the key or suite is absent, exit 0'
                --max-stale text 'on etcd, answer from this host'\''s snapshot of the suite when the store confirmed it at most SECONDS ago, without asking the store'
                --fallback-cache flag 'on etcd, answer from this host'\''s snapshot of the suite when no endpoint answers (one line on standard error says so); also PREFS_FALLBACK_CACHE=1'
                --help flag 'show help for this verb'
            )
            kinds=(domain key)
            ;;
        (read-type)
            verb_options=(
                --origin flag 'say where each value came from: managed:FILE, stored, global, system:FILE, registered:FILE, command-line or schema:FILE'
                --stored flag 'only the suite'\''s own stored values, no global suite or registered defaults'
                --defaults file... 'registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)'
                --help flag 'show help for this verb'
            )
            kinds=(domain key)
            ;;
        (write)
            verb_options=(
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --if-absent flag 'skip the keys that are already stored'
                --if-equals text 'change the key only if its stored value is VALUE (typed as the new value); else exit 4'
                --external flag 'keep the values in external storage whatever their size'
                --inline flag 'keep the values in the suite'\''s file whatever their size'
                --ttl text 'the values expire after D (500ms, 10s, 15m, 1h; at most a week): then reads show the next layer'
                --expires-at text 'the values expire at DATE (ISO 8601, 2026-12-01T18:00:00Z): then reads show the next layer'
                --schema file 'check the values against the schema FILE instead of the suite'\''s'
                --no-schema flag 'store the values without checking them against the suite'\''s schema'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain key value...)
            ;;
        (delete)
            verb_options=(
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain key...)
            ;;
        (rename)
            verb_options=(
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --schema file 'check the values against the schema FILE instead of the suite'\''s'
                --no-schema flag 'store the values without checking them against the suite'\''s schema'
                --help flag 'show help for this verb'
            )
            kinds=(domain key text)
            ;;
        (register)
            verb_options=(
                --replace flag 'replace the whole registration instead of merging into it'
                --delete key... 'remove KEY, and the KEYs that follow it, from the registration (all or nothing)'
                --schema file 'install FILE (- for standard input) as the suite'\''s schema, once checked whole'
                --no-schema flag 'record the values without checking them against the suite'\''s schema'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(suite key-or-file value...)
            ;;
        (reset)
            verb_options=(
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(suite stored-key...)
            ;;
        (domains)
            verb_options=(
                '--null -0' flag 'end each name with a NUL byte instead of a newline'
                --help flag 'show help for this verb'
            )
            kinds=(text)
            ;;
        (find)
            verb_options=(
                --json flag 'print the matches as JSON'
                --compact flag 'print JSON on one line (given alone, it asks for JSON)'
                '--null -0' flag 'end each match with a NUL byte instead of a newline'
                --expiring text 'only the stored keys that expire within D (500ms, 10s, 15m, 1h; at most a week), with their deadlines'
                --help flag 'show help for this verb'
            )
            kinds=(text)
            ;;
        (lint)
            verb_options=(
                --help flag 'show help for this verb'
            )
            kinds=(file...)
            ;;
        (export)
            verb_options=(
                --format 'choice binary xml openstep json typed-json sh env github' 'xml, binary, openstep, json or typed-json (default: by PATH'\''s ending, .json json, .plist and .xml xml, .env env, .sh sh; else json with --compact or --lossy, else xml); sh, env or github: the keys as environment variables'
                --keys 'key-list 0...' 'only these keys (comma-separated KEYs or :key:paths; repeatable); as environment, the global suite'\''s and deny-listed names too'
                --effective flag 'export what an application sees (stored, global and registered values), not just the stored ones; as environment, not the global suite'\''s'
                --defaults file... 'registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)'
                --lossy flag 'with JSON, write dates as ISO 8601 strings and data as base64 (else they are refused: JSON has no such types)'
                --compact flag 'print JSON on one line (given alone, it asks for JSON)'
                --max-stale text 'on etcd, answer from this host'\''s snapshot of the suite when the store confirmed it at most SECONDS ago, without asking the store'
                --fallback-cache flag 'on etcd, answer from this host'\''s snapshot of the suite when no endpoint answers (one line on standard error says so); also PREFS_FALLBACK_CACHE=1'
                --help flag 'show help for this verb'
            )
            kinds=(domain file)
            ;;
        (import)
            verb_options=(
                --replace flag 'make the suite exactly the document (else merge key by key)'
                --if-absent flag 'keep the keys that are already stored'
                --format 'choice binary xml openstep json typed-json' 'read the document as FORMAT (default: by its content)'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --schema file 'check the values against the schema FILE instead of the suite'\''s'
                --no-schema flag 'store the values without checking them against the suite'\''s schema'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain file)
            ;;
        (migrate)
            verb_options=(
                --from 'choice file ini env suite' 'what SOURCE is: file (plist or JSON), ini, env or suite (default: by its name)'
                --keys 'key-list 1...' 'only these keys (comma-separated KEYs or :key:paths; repeatable)'
                --bool-keys 'key-list 1...' 'make these keys booleans from 0/1, yes/no, on/off, true/false (else an error)'
                --rename text... 'store the key OLD as NEW (repeatable)'
                --infer-types flag 'strings that spell integers, reals or true/false (from INI also yes/no, on/off; not an INI value in quotes) become typed'
                --decode-json-strings flag 'strings that are a JSON object or array become that value'
                --overwrite flag 'replace stored values that differ (else they are kept: skipped-conflict)'
                --skip-errors flag 'leave out the keys that fail instead of failing the migration'
                --dry-run flag 'print the report of what would happen and change nothing'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --schema file 'check the values against the schema FILE instead of the suite'\''s'
                --no-schema flag 'store the values without checking them against the suite'\''s schema'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain domain)
            ;;
        (dump)
            verb_options=(
                --registered flag 'include the user'\''s registered defaults (prefs register)'
                --help flag 'show help for this verb'
            )
            kinds=(file)
            ;;
        (load)
            verb_options=(
                --dry-run flag 'print the report of what would be restored and change nothing'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --no-schema flag 'store the values without checking them against the suite'\''s schema'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(file)
            ;;
        (watch)
            verb_options=(
                --json flag 'print each change as a JSON object on one line'
                --compact flag 'print JSON on one line (given alone, it asks for JSON)'
                --initial flag 'print the current values first'
                --once flag 'exit after the first change'
                --timeout text 'stop after SECONDS, a running COMMAND too (with --once: exit 1 if no change came)'
                --retry-for text 'when the store (etcd) stops answering, wait for it at most SECONDS, then exit 69 (default: for ever)'
                --exec text 'instead of printing, run COMMAND with /bin/sh -c once per committed change, as -- COMMAND [ARG...] runs its words'
                --help flag 'show help for this verb'
            )
            kinds=(domain key...)
            command=1
            ;;
        (exec)
            verb_options=(
                --keys 'key-list 0...' 'only these top-level keys, from whichever DOMAIN or layer has them, the global suite'\''s and deny-listed names too (comma-separated; repeatable)'
                --max-stale text 'on etcd, answer from this host'\''s snapshot of the suite when the store confirmed it at most SECONDS ago, without asking the store'
                --fallback-cache flag 'on etcd, answer from this host'\''s snapshot of the suite when no endpoint answers (one line on standard error says so); also PREFS_FALLBACK_CACHE=1'
                --help flag 'show help for this verb'
            )
            kinds=(domain...)
            command=1
            ;;
        (lock)
            verb_options=(
                --ttl text 'how long the lock outlives a holder that stops renewing it (etcd'\''s lease; default 10s)'
                --wait text 'wait at most this long for the lock, then exit 75 (default: as long as it takes)'
                --no-wait flag 'exit 75 at once when the lock is held'
                '--holders -n' text 'a semaphore: up to N hold the lock at once (every holder gives the same N; default 1)'
                --help flag 'show help for this verb'
            )
            kinds=(text...)
            command=1
            ;;
        (locks)
            verb_options=(
                --help flag 'show help for this verb'
            )
            kinds=(text)
            ;;
        (history)
            verb_options=(
                --json flag 'print the versions as JSON'
                --compact flag 'print JSON on one line (given alone, it asks for JSON)'
                --help flag 'show help for this verb'
            )
            kinds=(domain key)
            ;;
        (diff)
            verb_options=(
                --help flag 'show help for this verb'
            )
            kinds=(domain text text)
            ;;
        (rollback)
            verb_options=(
                --to text 'the version to put back (the first field of `prefs history`)'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --dry-run flag 'print what would change (+ added, - removed, ~ replaced) and change nothing'
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain)
            ;;
        (edit)
            verb_options=(
                --fence text 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
                --help flag 'show help for this verb'
            )
            kinds=(domain)
            ;;
        (describe)
            verb_options=(
                --schema file 'describe the schema FILE instead of the suite'\''s'
                --choices flag 'print only the values KEY may take, one per line (a boolean'\''s: true and false)'
                --null flag 'with --choices, end each value with a NUL byte instead of a newline'
                --help flag 'show help for this verb'
            )
            kinds=(suite key)
            ;;
        (check)
            verb_options=(
                --schema file 'check the stored values against the schema FILE instead of the suite'\''s'
                --help flag 'show help for this verb'
            )
            kinds=(suite...)
            ;;
        (gc)
            verb_options=(
                --grace text 'only values expired and blobs made longer than SECONDS ago (default 3600): a write in progress keeps its blob, a host whose clock is behind still sees its values'
                --dry-run flag 'print what would be removed and remove nothing'
                --exit-code flag 'exit 3 when something changed, 0 when everything was already so'
                --help flag 'show help for this verb'
            )
            kinds=(suite...)
            ;;
        (completion)
            verb_options=(
                --help flag 'show help for this verb'
            )
            kinds=('choice bash zsh fish')
            ;;
        (help)
            verb_options=(
                --help flag 'show help for this verb'
            )
            kinds=(verb)
            ;;
        (*) return 1 ;;
    esac
}

_prefs() {
    local -a verbs global types scalars bools verb_options kinds operands given _prefs_store
    local scalar_types choice_types bool_types file_types at_file_types scope_words scope_pairs
    local verb kind prev command= dashdash=
    _prefs_table
    # The options before the verb that choose the suites: given to the prefs calls that list names,
    # then left out.
    while (( CURRENT > 2 )) && [[ ${(Q)words[2]} == ($~scope_words|$~scope_pairs) ]]; do
        if [[ ${(Q)words[2]} == ($~scope_words) ]]; then
            _prefs_store+=(${(Q)words[2]}); words[2]=(); (( CURRENT-- ))
        elif (( CURRENT > 3 )); then
            _prefs_store+=(${(Q)words[2]} ${(Q)words[3]}); words[2,3]=(); (( CURRENT -= 2 ))
        else
            return 1 # the option's value itself
        fi
    done
    if (( CURRENT == 2 )); then
        _describe -t verbs 'verb' verbs
        _describe -t global-options 'option' global
        return
    fi
    verb=${(Q)words[2]}
    _prefs_verb $verb || return 1
    # From here on the verb is the command word, so positions count from the first operand.
    shift words
    (( CURRENT-- ))
    _prefs_operands
    prev=${(Q)words[CURRENT-1]}
    if [[ -z $dashdash ]]; then
        # After a typed option's scalar TYPE (read --default -bool), the TYPE's VALUE.
        if (( CURRENT > 2 )) && _prefs_option_kind "${(Q)words[CURRENT-2]}" && [[ $kind == typed && $prev == ($~scalar_types) ]]; then
            [[ $prev == ($~bool_types) ]] && compadd -a bools
            return
        fi
        # The value of an option: after it, or after its = (--format=xml).
        if [[ $PREFIX == --*=* ]] && _prefs_option_kind ${PREFIX%%=*} && [[ $kind != flag ]]; then
            compset -P '*='
            _prefs_complete $kind
            return
        fi
        if _prefs_option_kind "$prev" && [[ $kind != flag ]]; then
            _prefs_complete $kind
            return
        fi
        # The verb's options (then, for a short one, the operands).
        if [[ $PREFIX == -* ]]; then
            _prefs_options
            [[ $PREFIX == --* ]] && return
        fi
    elif [[ -n $command ]]; then
        # After --, a COMMAND and its arguments, completed as a command line of their own.
        words=("${(@)words[dashdash+1,-1]}")
        (( CURRENT -= dashdash ))
        _normal
        return
    fi
    # The operand: its kind at this position, or the last one when it goes on.
    kind=${kinds[$#operands + 1]}
    [[ -z $kind && $kinds[-1] == *... ]] && kind=$kinds[-1]
    _prefs_complete ${kind%...}
}

_prefs "$@"