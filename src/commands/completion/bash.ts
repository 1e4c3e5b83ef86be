import { argumentWords, shQuote, tables, type ValueEntry } from './shell.js';
import { acceptedOptions, namesOf, type CommandSpec, type ValueKind } from './tree.js';

/**
 * The bash completion script. It runs on bash 3.2 (macOS's) as well as 4 and 5: no associative
 * arrays, only `case` tables. It reads COMP_WORDS and COMP_CWORD alone, so it can be driven by hand
 * (and is, in the tests). bash splits `--code=S` into `--code`, `=`, `S`; the walk handles both forms.
 */
export function bashScript(root: CommandSpec, version: string): string {
  const { commands, values } = tables(root);
  const caseLine = (key: string, body: string) => `    ${shQuote(key)}) ${body} ;;`;

  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map((command) => caseLine(command.path.join(' '), `echo ${shQuote(command.subcommands.map((sub) => sub.name).join(' '))}`));

  const optionCases = commands.map((command) =>
    caseLine(command.path.join(' '), `echo ${shQuote(acceptedOptions(command).flatMap(namesOf).join(' '))}`),
  );

  const argumentCases = commands.flatMap((command) =>
    command.arguments
      .map((_, index) => ({ index, words: argumentWords(command, index) }))
      .filter(({ words }) => words.length > 0)
      .map(({ index, words }) => caseLine(`${command.path.join(' ')}:${index}`, `echo ${shQuote(words.join(' '))}`)),
  );

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

# The values of a command's positional arguments, by path and position.
_core_arguments() {
  case "$1:$2" in
${argumentCases.join('\n')}
  esac
}

# Whether an option takes a value (status 0) and how to complete it: sets _core_kind to words
# (the list in _core_words), file, profile or text.
_core_value() {
  _core_kind=text
  _core_words=''
  case "$1:$2" in
${valueCases.join('\n')}
    *) return 1 ;;
  esac
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
  local path='' word pending='' config='' npos=0 i=1 at
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
    _core_value "$path" "$pending"
    case "$_core_kind" in
      words) COMPREPLY=( $(compgen -W "$_core_words" -- "$cur") ) ;;
      file)
        compopt -o filenames 2>/dev/null
        local IFS=$'\\n'
        COMPREPLY=( $(compgen -f -- "$cur") )
        ;;
      profile) COMPREPLY=( $(compgen -W "$(_core_profiles "$config")" -- "$cur") ) ;;
    esac
    return 0
  fi

  # --option=value in one word, where '=' does not split words.
  if [[ "$cur" == --*=* ]]; then
    local option="\${cur%%=*}"
    if _core_value "$path" "$option"; then
      case "$_core_kind" in
        words) COMPREPLY=( $(compgen -P "$option=" -W "$_core_words" -- "\${cur#*=}") ) ;;
        profile) COMPREPLY=( $(compgen -P "$option=" -W "$(_core_profiles "$config")" -- "\${cur#*=}") ) ;;
      esac
    fi
    return 0
  fi

  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$(_core_options "$path")" -- "$cur") )
    return 0
  fi

  local candidates
  if (( npos == 0 )); then candidates="$(_core_subcommands "$path")"; fi
  candidates="$candidates $(_core_arguments "$path" "$npos")"
  COMPREPLY=( $(compgen -W "$candidates" -- "$cur") )
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
      return `_core_kind=words; _core_words=${shQuote(value.words.join(' '))}`;
    case 'file':
      return '_core_kind=file';
    case 'profile':
      return '_core_kind=profile';
    case 'text':
      return '_core_kind=text';
  }
}
