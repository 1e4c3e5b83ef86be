import { argumentWords, oneLine, tables } from './shell.js';
import { acceptedOptions, type CommandSpec, type OptionSpec } from './tree.js';

/** A string in fish's single quotes, where only `\` and `'` are escaped. */
export function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The fish completion script: `complete` lines for each command, guarded by `__core_at PATH`, which
 * walks the words typed so far as the bash and zsh scripts do (see shell.ts). Needs fish 3.1 or later
 * (`complete --force-files`).
 */
export function fishScript(root: CommandSpec, version: string): string {
  const { commands, values } = tables(root);
  const at = (command: CommandSpec) => fishQuote(`__core_at ${JSON.stringify(command.path.join(' '))}`);
  const caseKey = (path: string, word: string) => fishQuote(`${path}:${word}`);

  const subcommandKeys = commands.flatMap((command) => command.subcommands.map((sub) => caseKey(command.path.join(' '), sub.name)));
  const valueKeys = values.map((entry) => caseKey(entry.path, entry.option));

  const lines: string[] = [];
  for (const command of commands) {
    const header = `# core${command.path.map((word) => ` ${word}`).join('')}`;
    lines.push('', header);
    for (const sub of command.subcommands) {
      lines.push(`complete -c core -n ${at(command)} -a ${fishQuote(sub.name)} -d ${fishQuote(oneLine(sub.summary))}`);
    }
    const words = argumentWords(command, 0);
    if (words.length > 0) {
      const argument = command.arguments[0]!;
      lines.push(`complete -c core -n ${at(command)} -a ${fishQuote(words.join(' '))} -d ${fishQuote(oneLine(argument.description))}`);
    }
    for (const option of acceptedOptions(command)) lines.push(optionLine(at(command), option));
  }

  return `# fish completion for core ${version}, generated from its commands by \`core completion fish\`.
#
# Load it in the current shell:
#   core completion fish | source
# or install it for every new shell:
#   core completion fish > ~/.config/fish/completions/core.fish
# Generate it again after upgrading core.

# Whether a word names a subcommand of the command at a path ('' is core itself).
function __core_subcommand --argument-names path word
    switch "$path:$word"
        case ${subcommandKeys.join(' ')}
            return 0
    end
    return 1
end

# Whether an option takes a value at the command at a path.
function __core_takes_value --argument-names path option
    switch "$path:$option"
        case ${valueKeys.join(' ')}
            return 0
    end
    return 1
end

# The path of the command typed so far: its subcommand words, such as "reason update".
function __core_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ''
    set -l skip 0
    set -l npos 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $token
            case '--*=*'
            case '-?*'
                if __core_takes_value "$path" $token
                    set skip 1
                end
            case '*'
                if test $npos -eq 0; and __core_subcommand "$path" $token
                    if test -z "$path"
                        set path $token
                    else
                        set path "$path $token"
                    end
                else
                    set npos (math $npos + 1)
                end
        end
    end
    echo $path
end

function __core_at --argument-names expected
    set -l path (__core_path)
    test "$path" = "$expected"
end

# Profile names, from the config file in use (--config when it was typed): core prints them.
function __core_profiles
    set -l tokens (commandline -opc)
    set -l config
    if set -l index (contains --index -- --config $tokens)
        set config --config $tokens[(math $index + 1)]
    end
    $tokens[1] $config completion __profiles 2>/dev/null
end

# Files only where an option takes a path.
complete -c core -f
${lines.join('\n')}
`;
}

function optionLine(condition: string, option: OptionSpec): string {
  const parts = ['complete -c core -n', condition];
  if (option.short) parts.push('-s', option.short.slice(1));
  if (option.long) parts.push('-l', option.long.slice(2));
  const value = option.value;
  if (value !== undefined) {
    switch (value.kind) {
      case 'words':
        parts.push('-x -a', fishQuote(value.words.join(' ')));
        break;
      case 'file':
        parts.push('-r -F');
        break;
      case 'profile':
        parts.push('-x -a', fishQuote('(__core_profiles)'));
        break;
      case 'text':
        parts.push('-x');
        break;
    }
  }
  parts.push('-d', fishQuote(oneLine(option.description)));
  return parts.join(' ');
}
