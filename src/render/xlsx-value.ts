/** A cell value as the workbook writer takes it. */
export type XlsxValue = string | number | boolean | Date;
