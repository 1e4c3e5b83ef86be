import { oneLine, tables } from './shell.js';
import { acceptedOptions, namesOf, type CommandSpec, type ValueKind } from './tree.js';

/** A string in PowerShell's single quotes, where only `'` is special (written twice). */
export function psQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201A\u201B]/g, (quote) => `${quote}${quote}`)}'`;
}

/**
 * A list of arrays: `@(,@(...))` for one, since `@(@('a', 'b'))` would be the inner array itself,
 * PowerShell flattening it.
 */
function psList(items: string[]): string {
  return items.length === 1 ? `@(,${items[0]})` : `@(${items.join(', ')})`;
}

/** A value's completion as a PowerShell array: @('words', 'a', 'b'), @('file'), @('profile'), @('text'). */
function valueArray(value: ValueKind): string {
  switch (value.kind) {
    case 'words':
      return `@(${[value.thenFile ? 'words-file' : 'words', ...value.words].map(psQuote).join(', ')})`;
    case 'file':
    case 'profile':
    case 'text':
      return `@(${psQuote(value.kind)})`;
  }
}

/**
 * The PowerShell completion script (PowerShell 7, and Windows PowerShell 5.1): one native argument
 * completer for `core`, with the command tree as hashtables made from the same tables as the bash,
 * zsh and fish scripts (shell.ts), and the same walk of the words typed so far: a word that names a
 * subcommand moves into it, an option that takes a value skips it, anything else is an argument.
 * Then it offers the pending option's value, the command's options (for a word starting with -),
 * or its subcommands and argument values. Files come from PowerShell's own path completion.
 */
export function powershellScript(root: CommandSpec, version: string): string {
  const { commands, values, arguments: args } = tables(root);
  const entry = (key: string, value: string) => `    ${psQuote(key)} = ${value}`;

  const subcommands = commands
    .filter((command) => command.subcommands.length > 0)
    .map((command) =>
      entry(
        command.path.join(' '),
        psList(command.subcommands.map((sub) => `@(${psQuote(sub.name)}, ${psQuote(oneLine(sub.summary, 100, '...'))})`)),
      ),
    );
  const options = commands.map((command) =>
    entry(
      command.path.join(' '),
      psList(
        acceptedOptions(command).flatMap((option) =>
          namesOf(option).map((name) => `@(${psQuote(name)}, ${psQuote(oneLine(option.description, 100, '...'))})`),
        ),
      ),
    ),
  );
  const valueEntries = values.map((value) => entry(`${value.path}:${value.option}`, valueArray(value.value)));
  const argumentEntries = args.map((argument) =>
    entry(`${argument.path}:${argument.index}`, `@(${psQuote(argument.variadic ? 'variadic' : 'one')}, ${valueArray(argument.value)})`),
  );

  return `# PowerShell completion for core ${version}, generated from its commands by \`core completion powershell\`.
#
# Load it in the current session:
#   core completion powershell | Out-String | Invoke-Expression
# or for every session, add that line to your profile (notepad $PROFILE), or save the script and
# dot-source it there:
#   core completion powershell > "$HOME\\.config\\core-completion.ps1"
# Generate it again after upgrading core.

# The subcommands of a command, by its path ('' is core itself): name and summary.
$__coreSubcommands = @{
${subcommands.join('\n')}
}

# The options a command accepts, its own and core's: name and description.
$__coreOptions = @{
${options.join('\n')}
}

# The options that take a value, by 'path:option', and how the value completes: one of a set of
# words ('words', then the words; 'words-file': a word, or a word, = and a file), a file, a profile
# name, or free text.
$__coreValues = @{
${valueEntries.join('\n')}
}

# The positional arguments, by 'path:index': 'one' or 'variadic' (this index and every later one),
# then how the value completes, as above.
$__coreArguments = @{
${argumentEntries.join('\n')}
}

function __coreResult([string]$text, [string]$tip, [string]$type) {
    if ([string]::IsNullOrEmpty($tip)) { $tip = $text }
    [System.Management.Automation.CompletionResult]::new($text, $text, $type, $tip)
}

# The files and folders that start with a prefix; each completion is the prefix's head and the path.
function __coreFiles([string]$typed, [string]$head) {
    Get-ChildItem -Path "$typed*" -Force -ErrorAction SilentlyContinue | ForEach-Object {
        $name = if ([System.IO.Path]::IsPathRooted($typed)) { $_.FullName } else { Resolve-Path -Relative -LiteralPath $_.FullName }
        if ($name.StartsWith('.\\') -and -not $typed.StartsWith('.')) { $name = $name.Substring(2) }
        if ($_.PSIsContainer) { $name = "$name$([System.IO.Path]::DirectorySeparatorChar)" }
        __coreResult "$head$name" $name 'ProviderItem'
    }
}

# The profile names of the config file in use (the last --config typed, as core reads it).
function __coreProfiles([string[]]$words) {
    $config = @()
    for ($i = 0; $i -lt $words.Count; $i++) {
        if ($words[$i] -eq '--config' -and $i + 1 -lt $words.Count) { $config = @('--config', $words[$i + 1]) }
        elseif ($words[$i] -like '--config=*') { $config = @('--config', $words[$i].Substring(9)) }
    }
    & core @config completion __profiles 2>$null
}

# Completes a value as its kind says, each candidate after the prefix $head (the option and = of
# --code=S).
function __coreValue($kind, [string]$typed, [string]$head, [string[]]$words) {
    switch ($kind[0]) {
        'words' {
            $kind | Select-Object -Skip 1 | Where-Object { $_ -like "$typed*" } | ForEach-Object { __coreResult "$head$_" $_ 'ParameterValue' }
        }
        'words-file' {
            if ($typed.Contains('=')) {
                $at = $typed.IndexOf('=')
                __coreFiles $typed.Substring($at + 1) "$head$($typed.Substring(0, $at + 1))"
            } else {
                $kind | Select-Object -Skip 1 | Where-Object { $_ -like "$typed*" } | ForEach-Object { __coreResult "$head$_" $_ 'ParameterValue' }
            }
        }
        'file' { __coreFiles $typed $head }
        'profile' {
            __coreProfiles $words | Where-Object { $_ -like "$typed*" } | ForEach-Object { __coreResult "$head$_" $_ 'ParameterValue' }
        }
        default { }
    }
}

Register-ArgumentCompleter -Native -CommandName core -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # The words typed before the one being completed, core itself left out.
    $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.Extent.Text })
    if ($words.Count -gt 0) { $words = @($words | Select-Object -Skip 1) }
    if ($wordToComplete -ne '' -and $words.Count -gt 0 -and $words[-1] -eq $wordToComplete) { $words = @($words | Select-Object -SkipLast 1) }

    $path = ''
    $pending = $null
    $position = 0
    foreach ($word in $words) {
        if ($null -ne $pending) { $pending = $null; continue }
        if ($word -like '--*=*') { continue }
        if ($word.StartsWith('-') -and $word.Length -gt 1) {
            if ($__coreValues.ContainsKey("$($path):$word")) { $pending = $word }
            continue
        }
        $sub = $null
        if ($position -eq 0 -and $__coreSubcommands.ContainsKey($path)) {
            $sub = $__coreSubcommands[$path] | Where-Object { $_[0] -ceq $word } | Select-Object -First 1
        }
        if ($null -ne $sub) { $path = if ($path -eq '') { $word } else { "$path $word" } }
        else { $position++ }
    }

    # The value of an option typed before this word.
    if ($null -ne $pending) {
        return __coreValue $__coreValues["$($path):$pending"] $wordToComplete '' $words
    }
    # --option=VALUE in one word.
    if ($wordToComplete -like '--*=*') {
        $at = $wordToComplete.IndexOf('=')
        $option = $wordToComplete.Substring(0, $at)
        if ($__coreValues.ContainsKey("$($path):$option")) {
            return __coreValue $__coreValues["$($path):$option"] $wordToComplete.Substring($at + 1) "$option=" $words
        }
        return
    }
    if ($wordToComplete.StartsWith('-')) {
        return $__coreOptions[$path] | Where-Object { $_[0] -like "$wordToComplete*" } | ForEach-Object { __coreResult $_[0] $_[1] 'ParameterName' }
    }
    $results = @()
    if ($position -eq 0 -and $__coreSubcommands.ContainsKey($path)) {
        $results += $__coreSubcommands[$path] | Where-Object { $_[0] -like "$wordToComplete*" } | ForEach-Object { __coreResult $_[0] $_[1] 'ParameterValue' }
    }
    $argument = $null
    for ($i = $position; $i -ge 0; $i--) {
        $found = $__coreArguments["$($path):$i"]
        if ($null -ne $found -and ($i -eq $position -or $found[0] -eq 'variadic')) { $argument = $found; break }
    }
    if ($null -ne $argument) { $results += __coreValue $argument[1] $wordToComplete '' $words }
    $results
}
`;
}
