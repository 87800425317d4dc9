export { NarrowColumn as default } from '@/app/components/narrow-column';
