export { ConfinedWalk, withWalk } from './confined-fs.js';
export type { Existing } from './confined-fs.js';
export { DOWNLOADS_DIR, HOME_DIR, HostView, TMP_DIR, USER_DATA_DIR } from './host-view.js';
export { checkClientPath, cleanViewPath, fileInfo, fsError, mapFsErrors, notRegularError, openForRead, parseMode, writeError, writeFileFrom } from './ops.js';
export { lookupId } from './owner.js';
export { multipartError, receiveUploads, receiveZipUpload, spoolUpload } from './upload.js';
export { handOverTree, handOverView } from './view-access.js';
export { findWatch, startWatch, stopWatch } from './watch.js';
export { extractZip, zipDirectory } from './zip.js';
