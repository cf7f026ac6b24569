import { bool, num, type ObjectSpec, ofType, str } from './fields.js';

/**
 * The records the service returns, as docs/service.md names them. The service may send fields not listed here; the client keeps them (see `raw`).
 */

export const HsVendor = {
  fields: {
    id: num('Unique identifier', { required: true }),
    name: str('Vendor name', { required: true }),
    OrgId: num('Identifier of the organization tied to the vendor', { required: true }),
  },
} as const satisfies ObjectSpec;

export const OrderItem = {
  fields: {
    id: num('Unique identifier'),
    c_currentStatusCodeId: str('Current status code identifier'),
    c_currentStatusCodeName: str('Current status name'),
    c_org: str('Organization of the item'),
    c_personNameFirst: str('First name of the person who placed the order'),
    c_personNameLast: str('Last name of the person who placed the order'),
    c_productName: str('Product name'),
    CreationTimestamp: str('Record creation timestamp'),
    CurrentStatusId: num('Current status identifier'),
    isNotModifiable: bool('true when the item cannot be changed'),
    orderedBy: str('Who placed the order'),
    OrgId: num('Organization identifier'),
    'Parent~OrderItemId': num('Parent order item identifier'),
    'Passport~OrderItemId': num('Order item associated with a passport'),
    PersonId: num('Person who placed the order'),
    ProductId: num('Product identifier'),
  },
} as const satisfies ObjectSpec;

export const Tenant = {
  fields: {
    id: num('Unique identifier'),
    isHouse: bool('true: personal account; false: business account'),
    isInvoiced: bool('true when the tenant pays by invoice'),
    name: str('Tenant name'),
    OrgId: num('Organization identifier'),
  },
} as const satisfies ObjectSpec;

export const Role = {
  fields: { id: num('Unique identifier'), name: str('Role name') },
} as const satisfies ObjectSpec;

export const InfoItem = {
  fields: {
    AttributeId: str('Attribute identifier'),
    c_attributeField: str('Attribute field name'),
    choice: str(),
    featureSetDescrip: str(),
    FeatureSetId: num(),
    featureSetName: str(),
    id: num('Unique identifier'),
    InfoId: num('Info record this item belongs to'),
    PersonId: num('Person identifier'),
    valueDate: str(),
    valueFeatureId: num(),
    valueNumber: num(),
    valueText: str(),
  },
} as const satisfies ObjectSpec;

export const Info = {
  fields: {
    id: num('Unique identifier'),
    isSubmitted: num(),
    isTransmitted: num(),
    orderItemDate: str(),
    PersonId: num('Person identifier'),
    ProductId: num('Product identifier'),
  },
  arrays: { infoItem: InfoItem },
} as const satisfies ObjectSpec;

/** Applicant fields that identify a person and are masked by default. */
const sensitive = { sensitive: true } as const;

export const Applicant = {
  fields: {
    ...ofType('string', [
      'aliasNameFirst',
      'aliasNameLast',
      'applicationDate',
      'currentAddressYearStart',
      'dropResume',
      'dropWaiver',
      'font',
      'georgia_race',
      'id_address1',
      'id_address2',
      'id_cardRevisonDate',
      'id_city',
      'id_classificationCode',
      'id_complianceType',
      'id_country',
      'id_countryCode',
      'id_documentType',
      'id_endorsementCode',
      'id_endorsementCodeDescription',
      'id_expirationDate',
      'id_firstName',
      'id_fullName',
      'id_gender',
      'id_hazmatExpDate',
      'id_idScanErrorMessage',
      'id_idScanTimestamp',
      'id_IIN',
      'id_issueDate',
      'id_issuedBy',
      'id_jurisdictionCode',
      'id_lastName',
      'id_limitedDurationDocument',
      'id_middleName',
      'id_namePrefix',
      'id_nameSuffix',
      'id_postalBox',
      'id_postalCode',
      'id_requestId',
      'id_restrictionCode',
      'id_restrictionCodeDescription',
      'id_vehicleClassCode',
      'id_vehicleClassCodeDescription',
      'id_veteran',
      'priorAddressCity',
      'priorAddressCounty',
      'priorAddressState',
      'priorAddressStreetPrimary',
      'priorAddressStreetSecondary',
      'priorAddressYearEnd',
      'priorAddressYearStart',
      'priorAddressZip',
      'supplementalWaiverDate',
      'supplementalWaiverSignature',
      'waiverDate',
      'waiverSignature',
    ]),
    id_birthdate: str('Birth date read from the ID document', sensitive),
    id_licenseNumber: str('Licence number read from the ID document', sensitive),
    ssn: str('Social Security number', sensitive),
    id: num('Unique identifier'),
    id_idScanSuccess: num(),
    PersonId: num('Person identifier'),
    ...ofType('boolean', [
      'isDropDriverLicense',
      'isDropDriverLicenseBack',
      'isDropResume',
      'isDropSelfie',
      'isNoIdScan',
    ]),
  },
  arrays: { info: Info },
} as const satisfies ObjectSpec;

export const Invoice = {
  fields: {
    id: str('Unique identifier'),
    balance: num('Outstanding amount', { money: true }),
    c_org: str('Organization'),
    date: str('Issue date'),
    dateDue: str('Payment deadline'),
    dropInvoice: str('Indicates whether the invoice was cancelled'),
    lateFee: num('Extra charge when unpaid after the due date', { money: true }),
    month: num('Month of issue'),
    year: num('Year of issue'),
    OrgId: num('Organization identifier'),
  },
} as const satisfies ObjectSpec;

export const OrgMonth = {
  fields: {
    id: num('Unique identifier'),
    OrgId: num('Organization identifier'),
    label: str('Month the row covers'),
    countEligibleAll: num('Employees eligible, all'),
    countEligibleRandomPool: num('Employees in the random pool'),
    countPickedAlcohol: num('Employees picked for a random alcohol test'),
    countPickedAlcoholResult: num('Random alcohol tests with a result'),
    countPickedDrug: num('Employees picked for a random drug test'),
    countPickedDrugResult: num('Random drug tests with a result'),
    dropCoveredEmployee: str('Covered-employee document'),
    dropMisReport: str('MIS report document'),
    dropRandomPick: str('Random pick document'),
  },
} as const satisfies ObjectSpec;

export const User = {
  fields: {
    id: num('Unique identifier'),
    email: str('Account email'),
    isInvited: bool('Invited but not yet registered'),
    isSuspended: bool('Account suspended'),
    nameFirst: str('First name'),
    nameFirstLast: str('Full name, first then last'),
    nameLast: str('Last name'),
    PersonId: num('Linked person record, null when not linked', { nullable: true }),
    phone: str('Phone number'),
    RoleId: num('Role identifier'),
    status: str('Account status'),
  },
} as const satisfies ObjectSpec;

export const Staff = {
  fields: {
    dateOfHire: str('Date of hire'),
    dateOfTermination: str('Date of termination'),
    id: num('Unique identifier'),
    PersonId: num('Person identifier'),
    salary: num('Salary', { money: true }),
    SalaryPeriodId: num('How often the salary is paid'),
  },
} as const satisfies ObjectSpec;
