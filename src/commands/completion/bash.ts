import { shQuote, tables, type ArgumentEntry, type ValueEntry } from './shell.js';
import { acceptedOptions, namesOf, type CommandSpec, type ValueKind } from './tree.js';

/**
 * The bash completion script. It runs on bash 3.2 (macOS's) as well as 4 and 5: no associative
 * arrays, only `case` tables. It reads COMP_WORDS and COMP_CWORD alone, so it can be driven by hand
 * (and is, in the tests). bash splits `--code=S` into `--code`, `=`, `S`; the walk handles both forms.
 */
export function bashScript(root: CommandSpec, version: string): string {
  const { commands, values, arguments: args } = tables(root);
  const caseLine = (key: string, body: string) => `    ${shQuote(key)}) ${body} ;;`;

  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map((command) => caseLine(command.path.join(' '), `echo ${shQuote(command.subcommands.map((sub) => sub.name).join(' '))}`));

  const optionCases = commands.map((command) =>
    caseLine(command.path.join(' '), `echo ${shQuote(acceptedOptions(command).flatMap(namesOf).join(' '))}`),
  );

  // A variadic argument takes its position and every later one: `'test:'*`, after the positions
  // before it, since case takes the first pattern that matches.
  const argumentCases = args.map((entry: ArgumentEntry) => {
    const pattern = entry.variadic ? `${shQuote(`${entry.path}:`)}*` : shQuote(`${entry.path}:${entry.index}`);
    return `    ${pattern}) ${valueBody(entry.value)} ;;`;
  });

  const valueCases = groupValues(values).map(({ keys, value }) => {
    const pattern = keys.map(shQuote).join('|');
    return `    ${pattern}) ${valueBody(value)} ;;`;
  });

  return `# bash completion for core ${version}, generated from its commands by \`core completion bash\`.
#
# Load it in the current shell:
#   source <(core completion bash)
# or install it for every new shell (with the bash-completion package):
#   core completion bash > "\${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/core"
# or add the first line to ~/.bashrc. Generate it again after upgrading core.

# The subcommands of a command, by its path ('' is core itself).
_core_subcommands() {
  case "$1" in
${subcommandCases.join('\n')}
  esac
}

# The options a command accepts, its own and core's.
_core_options() {
  case "$1" in
${optionCases.join('\n')}
  esac
}

# Whether a command takes a positional argument at a position (status 0), and how to complete it,
# as _core_value says.
_core_argument() {
  _core_kind=text
  _core_words=''
  case "$1:$2" in
${argumentCases.join('\n')}
    *) return 1 ;;
  esac
  return 0
}

# Whether an option takes a value (status 0) and how to complete it: sets _core_kind to words
# (the list in _core_words), words-file (one of _core_words, or one of them, = and a file), file,
# profile or text.
_core_value() {
  _core_kind=text
  _core_words=''
  case "$1:$2" in
${valueCases.join('\n')}
    *) return 1 ;;
  esac
  return 0
}

# Completes the value typed so far ($1) as _core_kind says, each candidate after the prefix $2 (the
# --code= of a --code=S word); $3 is the config file typed with --config, if any.
_core_complete_value() {
  case "$_core_kind" in
    words) COMPREPLY=( $(compgen -P "$2" -W "$_core_words" -- "$1") ) ;;
    words-file)
      if [[ "$1" == *=* ]]; then
        _core_kind=file
        _core_complete_value "\${1#*=}" "$2\${1%%=*}=" "$3"
      else
        COMPREPLY=( $(compgen -P "$2" -W "$_core_words" -- "$1") )
      fi
      ;;
    file) _core_files "$1" "$2" ;;
    profile) COMPREPLY=( $(compgen -P "$2" -W "$(_core_profiles "$3")" -- "$1") ) ;;
  esac
}

# File names that start with $1, each after the prefix $2.
_core_files() {
  local IFS=$'\\n' file
  if [[ -z "$2" ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=( $(compgen -f -- "$1") )
    return 0
  fi
  # Behind a prefix bash cannot tell a folder from a file, so the / is added here.
  COMPREPLY=()
  for file in $(compgen -f -- "$1"); do
    [[ -d "$file" ]] && file="$file/"
    COMPREPLY+=( "$2$file" )
  done
  [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
  return 0
}

# Profile names, from the config file in use (--config when it was typed): core prints them.
_core_profiles() {
  if [[ -n "$1" ]]; then
    "\${COMP_WORDS[0]}" --config "$1" completion __profiles 2>/dev/null
  else
    "\${COMP_WORDS[0]}" completion __profiles 2>/dev/null
  fi
}

_core_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local path='' word pending='' named='' config='' npos=0 i=1 at
  local IFS=$' \\t\\n'
  COMPREPLY=()
  while (( i < COMP_CWORD )); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      --config=*) config="\${word#--config=}" ;;
      --*=*) ;;
      -?*)
        if _core_value "$path" "$word"; then
          at=$(( i + 1 ))
          [[ "\${COMP_WORDS[at]}" == '=' ]] && at=$(( at + 1 ))
          if (( at >= COMP_CWORD )); then
            pending="$word"
            break
          fi
          [[ "$word" == --config ]] && config="\${COMP_WORDS[at]}"
          # NAME=FILE, which bash splits into NAME, = and FILE: the file is part of the value.
          if [[ "$_core_kind" == words-file && "\${COMP_WORDS[at+1]}" == '=' ]]; then
            if (( at + 2 >= COMP_CWORD )); then
              pending="$word"
              named=1
              break
            fi
            at=$(( at + 2 ))
          fi
          i=$at
        fi
        ;;
      *)
        if (( npos == 0 )) && [[ " $(_core_subcommands "$path") " == *" $word "* ]]; then
          path="\${path:+$path }$word"
        else
          npos=$(( npos + 1 ))
        fi
        ;;
    esac
    i=$(( i + 1 ))
  done

  if [[ -n "$pending" ]]; then
    [[ "$cur" == '=' ]] && cur=''
    if [[ -n "$named" ]]; then
      _core_kind=file
    else
      _core_value "$path" "$pending"
    fi
    _core_complete_value "$cur" '' "$config"
    return 0
  fi

  # --option=value in one word, where '=' does not split words.
  if [[ "$cur" == --*=* ]]; then
    local option="\${cur%%=*}"
    if _core_value "$path" "$option"; then
      _core_complete_value "\${cur#*=}" "$option=" "$config"
    fi
    return 0
  fi

  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$(_core_options "$path")" -- "$cur") )
    return 0
  fi

  if _core_argument "$path" "$npos"; then
    _core_complete_value "$cur" '' "$config"
  fi
  if (( npos == 0 )); then
    COMPREPLY+=( $(compgen -W "$(_core_subcommands "$path")" -- "$cur") )
  fi
  return 0
}

complete -F _core_completion core
`;
}

/** Entries with the same value at the same command become one case pattern (`'reply:-f'|'reply:--file'`). */
function groupValues(values: ValueEntry[]): { keys: string[]; value: ValueKind }[] {
  const groups = new Map<string, { keys: string[]; value: ValueKind }>();
  for (const entry of values) {
    const id = `${entry.path}\u0000${JSON.stringify(entry.value)}`;
    const group = groups.get(id) ?? { keys: [], value: entry.value };
    group.keys.push(`${entry.path}:${entry.option}`);
    groups.set(id, group);
  }
  return [...groups.values()];
}

function valueBody(value: ValueKind): string {
  switch (value.kind) {
    case 'words':
      return `_core_kind=${value.thenFile ? 'words-file' : 'words'}; _core_words=${shQuote(value.words.join(' '))}`;
    case 'file':
      return '_core_kind=file';
    case 'profile':
      return '_core_kind=profile';
    case 'text':
      return '_core_kind=text';
  }
}
