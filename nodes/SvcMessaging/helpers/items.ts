// Kept only because actions/sms/ still imports this path and is another engineer's to change:
// once its imports name ./itemResults, delete this file.
export { mapItems, rejectedItem, wrapError } from './itemResults';
