// Each scenario's artifact folder starts empty, so a re-run into the same --output-dir never shows the
// previous run's screenshots beside the new ones. Only a folder bcs made (it holds the marker file) is
// emptied: an --output-dir pointed at a folder with other things in it loses none of them.
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MARKER = '.bcs-artifacts';

export async function freshArtifactDir(dir: string): Promise<void> {
  if (await exists(join(dir, MARKER))) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, MARKER), 'artifacts of one bcs scenario; emptied when the scenario runs again\n');
}

/** Removes a folder bcs made (a merge of shards replacing a scenario's folder); anything else is left alone. */
export async function removeArtifactDir(dir: string): Promise<void> {
  if (await exists(join(dir, MARKER))) await rm(dir, { recursive: true, force: true });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}
