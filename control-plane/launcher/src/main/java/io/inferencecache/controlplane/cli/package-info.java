/**
 * The command line: one picocli class per subcommand, listed in {@link
 * io.inferencecache.controlplane.cli.InferenceCacheCli}.
 */
package io.inferencecache.controlplane.cli;
