/** Bump when the output changes: KEPUBs made by an older version are made again. */
export const KEPUB_CONVERTER_VERSION = 1;
