/** The per-org figures of the compliance report, from OrgMonth rows to statuses. */

/** UNKNOWN: no policy row, so no registration number; never counted with DOT orgs. */
export type Program = 'DOT' | 'NON_DOT' | 'UNKNOWN';
export const programs: readonly Program[] = ['DOT', 'NON_DOT', 'UNKNOWN'];

export interface OrgRates {
  program: Program;
  agency: string | null;
  /** Rate units (math.ts), null: no rate. */
  drug: bigint | null;
  alcohol: bigint | null;
  source: string;
  /**
   * The rates are assumed, not the org's own: no policy (the default agency's rates) or a DOT
   * policy without an agency (the default agency). Its statuses say so (docs/reports.md).
   */
  assumed: boolean;
  /** Flags of every month of the org: NO_POLICY, BELOW_AGENCY_MIN. */
  flags: string[];
}

export interface MonthInput {
  id: number | null;
  label: string;
  pool: number | null;
  eligibleAll: number | null;
  drugPicked: number;
  drugCompleted: number;
  alcoholPicked: number;
  alcoholCompleted: number;
  /** The documents the mirror has for the month, by name (the `drop*` value), or null. */
  randomPickDocument: string | null;
  coveredEmployeeDocument: string | null;
  misReportDocument: string | null;
}

export interface KindCalc {
  picked: number;
  completed: number;
  pickedYtd: number;
  completedYtd: number;
}

export interface MonthCalc {
  month: number;
  pool: number;
  exposure: number;
  flags: string[];
  input: MonthInput | undefined;
  drug: KindCalc;
  alcohol: KindCalc;
  /** Picks of the month (drug and alcohol) without a result. */
  picksNotCompleted: number;
  /** The month's own rates (rate units), when months are scored by the policy in force for each. */
  units?: { drug: bigint | null; alcohol: bigint | null };
  /** Σ rate units × pool of months 1..this one, per kind (a month without a rate adds 0). */
  weighted?: { drug: bigint; alcohol: bigint };
}

export interface OrgCalc {
  orgId: number;
  org: string | null;
  rates: OrgRates;
  months: MonthCalc[];
  /**
   * The first month of the year with an OrgMonth row (the employer joined then: its exposure
   * starts there); undefined: month 1.
   */
  firstMonth?: number;
  /** OrgMonth rows of the org whose label is no month (not used; a named data problem). */
  unreadableLabels?: number;
  /**
   * The problems named for the org over all its months (problems.ts), kept when only the last
   * month is (the walk's `lasts`).
   */
  problems?: readonly NamedProblem[];
}

/** A problem named for an employer (problems.ts). */
export interface NamedProblem {
  code: string;
  /** The problem in words, with the months it concerns. */
  text: string;
  /** A data problem: the figures need a look before any verdict of on pace or met. */
  review: boolean;
}

/** A test kind's figures through a month: targets null when there is no rate. */
export interface KindFigures extends KindCalc {
  ratePercent: number | null;
  target: number | null;
  expectedNum: bigint | null;
  /** Status when there is no rate: NO_RATE (drug) or N/A (alcohol). */
  noRate: string;
  /** On an assumed rate: the status says so. */
  assumed?: boolean;
}

/** The text of a status computed on an assumed rate: never the bare (red) status of a finding. */
export const ASSUMED = ' (assumed rate)';

export const kinds = ['drug', 'alcohol'] as const;
export type Kind = (typeof kinds)[number];
